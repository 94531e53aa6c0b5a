package pylayout

import "testing"

func TestFromLibName(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    Version
		b    Build
		ok   bool
	}{
		{"/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", Version{3, 11}, Release, true},
		{"libpython3.7m.so.1.0", Version{3, 7}, Release, true},
		{"libpython3.7dm.so.1.0", Version{3, 7}, Debug, true},
		{"libpython3.11d.so.1.0", Version{3, 11}, Debug, true},
		{"libpython3.13t.so", Version{3, 13}, FreeThreaded, true},
		{"/usr/bin/python3.11d", Version{3, 11}, Debug, true},
		{"python3.13", Version{3, 13}, Release, true},
		{"libpython3.8.a", Version{3, 8}, Release, true},
		{"python3.11-config", Version{}, Release, false},
		{"libpython2.7.so.1.0", Version{}, Release, false},
		{"libpython3.so", Version{}, Release, false},
		{"libpythonfoo.so", Version{}, Release, false},
		{"libpython3.11x.so", Version{}, Release, false},
	} {
		v, b, ok := FromLibName(tc.name)
		if ok != tc.ok || ok && (v != tc.v || b != tc.b) {
			t.Errorf("FromLibName(%q) = %s %s %v, want %s %s %v", tc.name, v, b, ok, tc.v, tc.b, tc.ok)
		}
	}
}

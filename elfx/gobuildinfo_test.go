package elfx

import (
	"os"
	"runtime"
	"testing"
)

// TestGoBuildInfoOncePerObject: an object's Go build info is read once,
// whatever the cores of a batch ask. Each call searched the file's data
// for the build info's magic before (a tenth of a 200-core batch's CPU,
// most of it on executables not written in Go, where the search goes to
// the end). The second call allocates a small part of what the first
// did, and answers the same.
func TestGoBuildInfoOncePerObject(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cprog := compile(t, t.TempDir(), "gcc", "prog", "c", "int main(void) { return 0; }\n", "-g")
	for _, tc := range []struct {
		path    string
		version string // "" for no Go program
	}{
		{self, runtime.Version()},
		{cprog, ""},
	} {
		o := mustOpen(t, tc.path)
		type answer struct {
			version, goarch string
			ok              bool
		}
		var first, second answer
		firstAllocs := mallocs(func() { first.version, first.goarch, first.ok = o.GoBuildInfo() })
		secondAllocs := mallocs(func() { second.version, second.goarch, second.ok = o.GoBuildInfo() })
		t.Logf("%s: %+v, %d objects, then %d", tc.path, first, firstAllocs, secondAllocs)
		want := answer{tc.version, runtime.GOARCH, tc.version != ""}
		if tc.version == "" {
			want.goarch = ""
		}
		if first != want || second != want {
			t.Errorf("%s: build info %+v, then %+v; want %+v", tc.path, first, second, want)
		}
		if secondAllocs*10 > firstAllocs {
			t.Errorf("%s: the second call allocated %d objects, the first %d: the build info was read again", tc.path, secondAllocs, firstAllocs)
		}
	}
}

// mallocs is how many heap objects f allocated.
func mallocs(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

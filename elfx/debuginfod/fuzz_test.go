package debuginfod

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzSetting: the cache's settings files (cache_clean_interval_s,
// max_unused_age_s, cache_miss_s) hold anything another program or a
// person wrote. Parsing never fails or panics: a number as scanf's %ld
// reads it, else the default.
func FuzzSetting(f *testing.F) {
	for _, s := range []string{"86400", "604800\n", " 600", "-1", "+7x", "", "abc", "99999999999999999999999", "\x00", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		const def = 12345
		v := parseSetting(s, def)
		trimmed := strings.TrimLeft(s, " \t\n\v\f\r")
		if n, err := strconv.ParseInt(trimmed, 10, 64); err == nil && v != n {
			t.Errorf("%q read as %d, want %d", s, v, n)
		}
		if trimmed == "" || !strings.ContainsAny(trimmed[:1], "+-0123456789") {
			if v != def {
				t.Errorf("%q (no number) read as %d", s, v)
			}
		}
	})
}

// FuzzDownloaded: what a server sends is checked (verify) and sections are
// taken out of cached files (extractSection); arbitrary bytes must give
// an error or a result, never a panic, and nothing outside the target.
func FuzzDownloaded(f *testing.F) {
	for _, p := range []string{"/lib/x86_64-linux-gnu/libc.so.6", "/bin/true"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b[:min(len(b), 1<<16)])
		}
	}
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Add([]byte("<html>404</html>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "executable")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		err = verify(f, int64(len(data)), KindExecutable, "00112233445566778899aabbccddeeff00112233")
		f.Close()
		if err == nil {
			t.Error("arbitrary bytes accepted with a made-up build ID")
		}
		dst := filepath.Join(dir, "section-.eh_frame")
		store := &cache{dir: dir}
		if ok, err := store.extractSection(p, ".eh_frame", dst); ok && err == nil {
			if _, err := os.Stat(dst); err != nil {
				t.Errorf("section reported but not written: %v", err)
			}
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if e.Name() != "executable" && e.Name() != "section-.eh_frame" && e.Name() != partialDir {
				t.Errorf("left %s behind", e.Name())
			}
		}
		if n := names(filepath.Join(dir, partialDir)); len(n) != 0 {
			t.Errorf("left partial files %v behind", n)
		}
	})
}

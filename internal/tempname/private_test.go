package tempname

import (
	"os"
	"path/filepath"
	"testing"
)

// InPrivateDir: fn sees os.TempDir() as a new directory named by
// Pattern; what it leaves there is gone afterwards and TMPDIR is what it
// was, also when fn fails.
func TestInPrivateDir(t *testing.T) {
	outer := t.TempDir()
	t.Setenv("TMPDIR", outer)
	var seen string
	err := InPrivateDir("check", func(dir string) error {
		seen = os.TempDir()
		f, err := os.CreateTemp("", "leftover-*")
		if err != nil {
			return err
		}
		f.Close()
		return os.ErrClosed
	})
	if err != os.ErrClosed {
		t.Fatalf("InPrivateDir returned %v, want fn's error", err)
	}
	if filepath.Dir(seen) != outer || !owned(filepath.Base(seen)) {
		t.Errorf("fn's TMPDIR %s is not a new coreunwind-check-PID-* in %s", seen, outer)
	}
	if os.Getenv("TMPDIR") != outer {
		t.Errorf("TMPDIR is %s afterwards, want %s", os.Getenv("TMPDIR"), outer)
	}
	if left, _ := os.ReadDir(outer); len(left) != 0 {
		t.Errorf("%d entries left in %s", len(left), outer)
	}
}

// owned says whether name was made by Pattern in this process.
func owned(name string) bool {
	pid, ok := owner(name)
	return ok && pid == os.Getpid()
}

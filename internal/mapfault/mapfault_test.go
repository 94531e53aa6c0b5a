package mapfault

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestCopyFromTruncatedMapping maps a file, truncates it to nothing and
// copies from the mapping: the SIGBUS that follows is an error, in the
// goroutine and through a Group.
func TestCopyFromTruncatedMapping(t *testing.T) {
	if !testenv.InChild(t) {
		return
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, make([]byte, 1<<16), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, 1<<16, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	var b [16]byte
	if _, err := Copy(b[:], m[4096:]); !errors.Is(err, ErrFault) {
		t.Errorf("Copy from a truncated mapping: %v, want ErrFault", err)
	}
	err = Catch(func() {
		var g Group
		g.Go(func() { b[0] = m[8192] })
		g.Go(func() {})
		g.Wait()
	})
	if !errors.Is(err, ErrFault) {
		t.Errorf("a Group's faulting goroutine: %v, want ErrFault", err)
	}
}

// TestCatchPassesOtherPanics: a nil dereference or any other panic is a
// bug, not a changed file, and goes on.
func TestCatchPassesOtherPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"nil":   func() { var p *int; _ = *p },
		"value": func() { panic("boom") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: the panic was swallowed", name)
				}
			}()
			err := Catch(f)
			t.Errorf("%s: Catch returned %v", name, err)
		}()
	}
}

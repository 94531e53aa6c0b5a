package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestRefusesSpecialFiles: a FIFO (directly and through a symbolic
// link), a character device and a directory are refused at once, with
// the path and what it is in the message; a regular file opens and
// reads as usual.
func TestRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	testenv.Mkfifo(t, fifo)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, kind string }{
		{fifo, "named pipe"},
		{link, "named pipe"},
		{"/dev/zero", "character device"},
		{dir, "directory"},
	} {
		testenv.NoHang(t, 10*time.Second, "Open "+c.path, func() {
			f, err := Open(c.path)
			if err == nil {
				f.Close()
				t.Errorf("Open(%s) succeeded", c.path)
				return
			}
			want := c.path + ": not a regular file (" + c.kind + ")"
			if err.Error() != want || !errors.Is(err, ErrNotRegular) {
				t.Errorf("Open(%s): %v, want %q", c.path, err, want)
			}
		}, fifo)
		testenv.NoHang(t, 10*time.Second, "OpenNoFollow "+c.path, func() {
			if _, err := OpenNoFollow(c.path); !errors.Is(err, ErrNotRegular) {
				t.Errorf("OpenNoFollow(%s): %v, want ErrNotRegular", c.path, err)
			}
		}, fifo)
	}

	reg := filepath.Join(dir, "reg")
	if err := os.WriteFile(reg, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Open(reg)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flags, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	if flags&unix.O_NONBLOCK != 0 {
		t.Error("the descriptor is still non-blocking")
	}
	if b, err := ReadAll(f, 5); err != nil || string(b) != "hello" {
		t.Errorf("ReadAll of a regular file: %q, %v", b, err)
	}
}

// TestNoFollow: OpenNoFollow refuses a symbolic link to a regular file,
// saying so; Open follows it.
func TestNoFollow(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "reg")
	if err := os.WriteFile(reg, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(reg, link); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenNoFollow(link); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("OpenNoFollow(link): %v, want a refusal naming a symbolic link", err)
	}
	f, err := Open(link)
	if err != nil {
		t.Fatalf("Open(link): %v", err)
	}
	f.Close()
}

// TestReadAllBound: a file larger than the bound is refused before it
// is read (a sparse file claims gigabytes it does not hold on disk).
func TestReadAllBound(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sparse")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if f, err = Open(p); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := ReadAll(f, 1<<20)
	if !errors.Is(err, ErrTooLarge) || b != nil {
		t.Fatalf("ReadAll of a 3 GB sparse file with a 1 MB bound: %d bytes, %v", len(b), err)
	}
}

// TestReadAllOneBuffer: ReadAll reads a file into one buffer of its size
// (io.ReadAll grew one from 512 bytes, a copy for each doubling), the
// whole file or the rest of it past the offset, byte for byte.
func TestReadAllOneBuffer(t *testing.T) {
	want := make([]byte, 100_000)
	for i := range want {
		want[i] = byte(i * 7 % 251)
	}
	p := filepath.Join(t.TempDir(), "cache")
	if err := os.WriteFile(p, want, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, off := range []int64{0, 10, int64(len(want))} {
		if _, err := f.Seek(off, 0); err != nil {
			t.Fatal(err)
		}
		got, err := ReadAll(f, 1<<20)
		if err != nil || string(got) != string(want[off:]) {
			t.Errorf("ReadAll from %d: %d bytes, %v; want %d bytes", off, len(got), err, len(want)-int(off))
		}
	}
	allocs := testing.AllocsPerRun(10, func() {
		f.Seek(0, 0)
		if b, err := ReadAll(f, 1<<20); err != nil || len(b) != len(want) {
			t.Fatalf("ReadAll: %d bytes, %v", len(b), err)
		}
	})
	if allocs > 4 {
		t.Errorf("ReadAll of %d bytes made %v allocations, want a buffer and Stat's", len(want), allocs)
	}
}

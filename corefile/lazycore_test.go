package corefile

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// A batch reads small cores on demand into buffers that pass from core
// to core: every byte it reads must be the one a mapping of the file
// shows, never a byte a previous core left in the buffer.
func TestLazyCoreReadsAsMapped(t *testing.T) {
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	var cores []string
	// (A thread adds its 8 MiB stack to the file, most of it a hole:
	// one thread keeps the core under lazyCoreMax.)
	for _, args := range [][]string{{"segv", "1"}, {"abort", "0"}, {"segv", "0"}} {
		core, _ := crash(t, prog, args...)
		kept := filepath.Join(dir, "core."+args[0]+"."+args[1])
		if err := os.Rename(core, kept); err != nil {
			t.Fatal(err)
		}
		cores = append(cores, kept)
	}
	files := NewFileCache()
	defer files.Close()
	for _, core := range cores {
		lazy, err := Open(core, Options{Files: files})
		if err != nil {
			t.Fatal(err)
		}
		if lazy.lazy == nil {
			t.Fatalf("%s: a batch's small core is not read on demand", core)
		}
		mapped, err := Open(core, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if mapped.lazy != nil {
			t.Fatalf("%s: a single core is read on demand, not mapped", core)
		}
		if !reflect.DeepEqual(lazy.Threads, mapped.Threads) || !reflect.DeepEqual(lazy.Mappings, mapped.Mappings) ||
			!reflect.DeepEqual(lazy.Warnings, mapped.Warnings) || len(lazy.Modules) != len(mapped.Modules) {
			t.Errorf("%s: threads, mappings, warnings or modules differ between the lazy and the mapped core", core)
		}
		for i := range min(len(lazy.Modules), len(mapped.Modules)) {
			if a, b := lazy.Modules[i], mapped.Modules[i]; a.Path != b.Path || a.BuildID != b.BuildID || a.Found != b.Found {
				t.Errorf("%s: module %d: lazy %s %s %v, mapped %s %s %v", core, i, a.Path, a.BuildID, a.Found, b.Path, b.BuildID, b.Found)
			}
		}
		// Every dumped byte, in reads of odd sizes that straddle pages
		// (the last one of each segment runs past its end).
		for _, s := range mapped.Segments {
			for addr := s.Vaddr; addr < s.Vaddr+mapped.Present(s); addr += 3001 {
				want, got := make([]byte, 5003), make([]byte, 5003)
				errW := mapped.readCore(addr, want)
				errG := lazy.readCore(addr, got)
				if (errW == nil) != (errG == nil) || !bytes.Equal(want, got) {
					t.Fatalf("%s: %d bytes at %#x: lazy %v, mapped %v, bytes equal %v", core, len(got), addr, errG, errW, bytes.Equal(want, got))
				}
			}
		}
		mapped.Close()
		lazy.Close()
	}
}

// A core cut short after it was opened (still being copied, or
// replaced) reads as zeros past its new end, not as what the buffer held
// for a previous core.
func TestLazyCoreShrunkFile(t *testing.T) {
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	core, _ := crash(t, prog, "segv", "1")
	whole, err := os.ReadFile(core)
	if err != nil {
		t.Fatal(err)
	}
	files := NewFileCache()
	defer files.Close()
	dirty := files.coreBuffer(len(whole))
	for i := range dirty {
		dirty[i] = 0xa5
	}
	files.releaseCoreBuffer(dirty)
	lc, ok := openLazy(core, files)
	if !ok {
		t.Fatal("openLazy refused a kernel core")
	}
	defer lc.close()
	if &lc.buf[0] != &dirty[0] {
		t.Fatal("the core did not get the released buffer: the test proves nothing")
	}
	end := (len(whole) / 2) &^ (lazyPage - 1)
	if err := os.Truncate(core, int64(end)); err != nil {
		t.Fatal(err)
	}
	if err := lc.fill(0, uint64(len(whole))); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(lc.buf[:end], whole[:end]) {
		t.Error("the bytes before the new end differ from the file's")
	}
	if i := bytes.IndexFunc(lc.buf[end:], func(r rune) bool { return r != 0 }); i >= 0 {
		t.Errorf("byte %#x, past the file's new end %#x, is not zero", end+i, end)
	}
}

package cfi

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestIndexKeepsOnlyItself: the sorted index a .debug_frame lookup builds
// (a Go program's: thousands of FDEs) allocates the index, at its
// size, and little else: no FDE per entry, no index grown by appending
// (a fifth of a warm Go report's heap pages went to both).
func TestIndexKeepsOnlyItself(t *testing.T) {
	goTool := testenv.NeedTool(t, "go")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module prog\n\ngo 1.21\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command(goTool, "build", "-o", "prog", ".")
	build.Dir, build.Env = dir, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	secs, order, ptrSize := readSections(t, filepath.Join(dir, "prog"))
	df, ok := secs[".debug_frame"]
	if !ok {
		t.Fatal("the Go program has no .debug_frame")
	}
	tab, err := NewDebugFrame(df.data, df.addr, order, ptrSize)
	if err != nil {
		t.Fatal(err)
	}
	fdes, err := tab.FDEs()
	if err != nil || len(fdes) < 1000 {
		t.Fatalf("%d FDEs, %v; want a thousand or more", len(fdes), err)
	}
	pc := fdes[len(fdes)/2].Begin
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f, err := tab.FDEForPC(pc)
	runtime.ReadMemStats(&after)
	if err != nil || f.Begin != pc {
		t.Fatalf("FDEForPC(%#x) = %+v, %v", pc, f, err)
	}
	index := uint64(len(fdes)) * uint64(unsafe.Sizeof(indexEntry{}))
	if got := after.TotalAlloc - before.TotalAlloc; got > index+index/4 {
		t.Errorf("the first lookup allocated %d bytes; the index of %d FDEs is %d", got, len(fdes), index)
	}
	if len(tab.index) != len(fdes) || cap(tab.index) != len(fdes) {
		t.Errorf("index of %d entries, capacity %d; %d FDEs", len(tab.index), cap(tab.index), len(fdes))
	}
}

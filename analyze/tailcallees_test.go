package analyze

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestTailCallSitesOncePerReport: the tail-call sites of a function the
// search for a chain enters are read (and copied with their module) once
// per report: the search enters the same functions again and again, and
// gets the first answer (here: with the module's object gone).
func TestTailCallSitesOncePerReport(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "e2e", "testdata", "progs", "tailcall.c"))
	if err != nil {
		t.Fatal(err)
	}
	exe := testenv.BuildC(t, t.TempDir(), "tailcall", string(src), "-O2", "-g")
	o, err := elfx.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	cleanup, ok := o.LookupSymbol("cleanup")
	if !ok || cleanup.Addr == 0 {
		t.Fatalf("no cleanup in %s: %+v", exe, cleanup)
	}
	const bias = 0x7f0000000000
	m := &module{core: &corefile.Module{Path: exe}, opened: o, bias: bias, start: bias, end: bias + 1<<32}
	tg := &target{core: &corefile.Core{Executable: exe}, modules: []*module{m}}
	s := newSymbolizer(tg, true)
	first, ok := s.tailCallsOf(cleanup.Addr + bias)
	if !ok || len(first) != 1 || first[0].site.TargetName != "buf_free" && first[0].site.TargetAddr == 0 {
		t.Fatalf("tail calls of cleanup: %+v, %v; want the one to buf_free", first, ok)
	}
	m.opened = nil
	again, ok := s.tailCallsOf(cleanup.Addr + bias)
	if !ok || len(again) != 1 || &again[0] != &first[0] {
		t.Errorf("tail calls of cleanup again: %+v, %v: read again", again, ok)
	}
}

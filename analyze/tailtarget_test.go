package analyze

import (
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestCallTargetResolvedOncePerReport: a call target named by its
// linkage name is looked up in the modules once per report; the search
// for a tail-call chain meets it again and again and gets the first
// answer (here: with no module left to ask).
func TestCallTargetResolvedOncePerReport(t *testing.T) {
	paths, _ := filepath.Glob("/lib/*-linux-gnu/libc.so.6")
	if len(paths) == 0 {
		testenv.Unavailable(t, "no libc.so.6")
	}
	o, err := elfx.Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	want, ok := o.LookupSymbol("abort")
	if !ok || want.Addr == 0 {
		t.Fatalf("libc has no abort: %+v", want)
	}
	const bias = 0x7f0000000000
	m := &module{core: &corefile.Module{Path: paths[0]}, opened: o, bias: bias}
	tg := &target{core: &corefile.Core{Executable: "/usr/bin/prog"}, modules: []*module{m}}
	s := newSymbolizer(tg, true)
	site := tailCallSite{m: m, site: elfx.CallSite{TargetName: "abort"}}
	if addr, ok := s.callTarget(site); !ok || addr != want.Addr+bias {
		t.Fatalf("callTarget(abort) = %#x, %v; want %#x", addr, ok, want.Addr+bias)
	}
	tg.modules = nil
	if addr, ok := s.callTarget(site); !ok || addr != want.Addr+bias {
		t.Errorf("callTarget(abort) again = %#x, %v: the modules were asked again", addr, ok)
	}
}

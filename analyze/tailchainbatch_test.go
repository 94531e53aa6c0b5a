package analyze

import (
	"slices"
	"testing"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/report"
)

// tailChainProg crashes at the end of two tail calls inside the
// executable: main calls top, which jumps to mid, which jumps to crash.
const tailChainProg = `
__attribute__((noipa)) void crash(int *p) { *p = 1; }
__attribute__((noipa)) void mid(int *p) { crash(p); }
__attribute__((noipa)) void top(int *p) { mid(p); }
int main(void) {
	int *volatile p = 0;
	top(p);
	return 0;
}
`

// TestTailChainOncePerObject: a tail-call chain found inside one module
// is kept with the module's object, so the cores of a batch (one
// elfx.Cache) that have the same gap get it without searching again, at
// their own bias (PIE). The search walks the functions' tail-call sites
// up to 4096 steps a gap; the generated C++ program after dwz has
// hundreds of gaps a core, and searching them in every core was four
// fifths of a warm batch of its cores.
func TestTailChainOncePerObject(t *testing.T) {
	testenv.NeedCores(t)
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "prog", tailChainProg, "-O2", "-g", "-fPIE", "-pie")
	cores := crashTimes(t, dir, exe, 2, nil)
	objs := elfx.NewCache()
	defer objs.Close()
	var reports []*report.Report
	for _, core := range cores {
		r, err := Analyze(core, Options{Executable: exe, Objects: objs, CrashedOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		reports = append(reports, r)
	}
	// tailFrames names the crashed thread's tail-call frames and gives
	// their pcs, and the pc of the frame the walk found above them.
	tailFrames := func(r *report.Report) (names []string, pcs []uint64, caller uint64) {
		for _, f := range r.Threads[0].Frames {
			if f.Trust == report.TrustTailCall {
				names = append(names, *f.Function)
				pcs = append(pcs, uint64(f.PC))
			} else if len(names) > 0 {
				return names, pcs, uint64(f.PC)
			}
		}
		return names, pcs, 0
	}
	first, _, _ := tailFrames(reports[0])
	later, pcs, ret := tailFrames(reports[1])
	if !slices.Equal(first, []string{"mid", "top"}) || !slices.Equal(later, first) {
		t.Fatalf("tail-call frames: first core %q, later core %q; want mid, top", first, later)
	}

	// The later core's gap, answered by the object: a search of it gives
	// up, as top's tail calls are unknown to this symbolizer.
	s, err := Open(cores[1], Options{Executable: exe, Objects: objs})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := s.target.module(ret - 1)
	obj := m.obj()
	if obj == nil {
		t.Fatalf("no object for the executable at %#x", ret)
	}
	entry := func(name string) uint64 {
		sym, ok := obj.LookupSymbol(name)
		if !ok || sym.Addr == 0 {
			t.Fatalf("no %s in %s", name, exe)
		}
		return sym.Addr + m.bias
	}
	sym := newSymbolizer(s.target, true)
	sym.callees.get(entry("top"), func() calleeSites { return calleeSites{} })
	if searched, _ := sym.searchTailChain(ret, entry("crash")); searched != nil {
		t.Fatalf("a search without top's tail calls found %#x", searched)
	}
	if got := sym.tailChain(ret, entry("crash")); !slices.Equal(got, pcs) {
		t.Errorf("the later core's chain %#x, want its report's %#x: searched again", got, pcs)
	}
}

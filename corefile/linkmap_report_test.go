package corefile_test

import (
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/corefile"
	_ "github.com/coreunwind/coreunwind/x86_64" // registers the x86_64 unwinder
)

// TestReportWithoutNTFile: the whole pipeline (unwinding through the
// libraries' CFI, names, lines) gives the same frames for the kernel core
// without NT_FILE as for the original.
func TestReportWithoutNTFile(t *testing.T) {
	prog, core, stripped := corefile.KernelLinkMapCore(t)
	want, err := analyze.Analyze(core, analyze.Options{Executable: prog})
	if err != nil {
		t.Fatal(err)
	}
	got, err := analyze.Analyze(stripped, analyze.Options{Executable: prog})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Threads) != len(want.Threads) || len(got.Threads) < 3 {
		t.Fatalf("%d threads without NT_FILE, %d with", len(got.Threads), len(want.Threads))
	}
	if len(got.Modules) != len(want.Modules) {
		t.Errorf("%d modules without NT_FILE, %d with", len(got.Modules), len(want.Modules))
	}
	named := 0
	for i, w := range want.Threads {
		g := got.Threads[i]
		if g.TID != w.TID || len(g.Frames) != len(w.Frames) {
			t.Errorf("thread %d: %d frames without NT_FILE, thread %d has %d with", g.TID, len(g.Frames), w.TID, len(w.Frames))
			continue
		}
		for j, wf := range w.Frames {
			gf := g.Frames[j]
			if gf.PC != wf.PC || gf.Trust != wf.Trust || str(gf.Function) != str(wf.Function) || str(gf.File) != str(wf.File) {
				t.Errorf("thread %d frame %d: %#x %s %s %s without NT_FILE, %#x %s %s %s with", g.TID, j,
					gf.PC, gf.Trust, str(gf.Function), str(gf.File), wf.PC, wf.Trust, str(wf.Function), str(wf.File))
			}
			if wf.Function != nil {
				named++
			}
		}
	}
	if named < 6 {
		t.Errorf("only %d named frames: the comparison proves little", named)
	}
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

package ia64

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestAnalyzeInterpretedCore: the whole pipeline (corefile, analyze,
// symbolization) names every frame of the interpreted core as
// addr2line names the call sites, and the frames' PCs are the
// interpreter's.
func TestAnalyzeInterpretedCore(t *testing.T) {
	m, exe, core := runToCore(t, false)
	r, err := analyze.Analyze(core, analyze.Options{Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Threads) != 1 {
		t.Fatalf("%d threads", len(r.Threads))
	}
	th := r.Threads[0]
	if th.Error != nil {
		t.Errorf("thread error: %s", *th.Error)
	}
	pcs := []uint64{m.IP}
	for i := len(m.Shadow) - 1; i >= 0; i-- {
		pcs = append(pcs, m.Shadow[i].IP)
	}
	if len(th.Frames) != len(pcs) {
		t.Fatalf("%d frames, interpreter %d", len(th.Frames), len(pcs))
	}
	a2l := testenv.NeedTool(t, "ia64-linux-gnu-addr2line")
	for i, f := range th.Frames {
		if uint64(f.PC) != pcs[i] {
			t.Errorf("frame %d: pc %#x, interpreter %#x", i, uint64(f.PC), pcs[i])
		}
		lookup := pcs[i]
		if i > 0 {
			lookup-- // the call bundle, not the return address
		}
		out, err := exec.Command(a2l, "-f", "-e", exe, "0x"+strconv.FormatUint(lookup, 16)).Output()
		if err != nil {
			t.Fatal(err)
		}
		want := strings.SplitN(string(out), "\n", 2)[0]
		if f.Function == nil || *f.Function != want {
			t.Errorf("frame %d: function %v, addr2line %q", i, f.Function, want)
		}
	}
}

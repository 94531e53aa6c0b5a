package triage_test

import (
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/triage"
)

// TestNoFrameRegisters: a batch whose output prints no report's
// registers (Config.NoFrameRegisters: the summary, a profile) keeps the
// crashing thread's first two frames' registers, which the crash
// analysis reads, and lists no other frame's; its signatures are those
// of a batch that lists them all. Listing every frame's registers was
// 4% of a warm batch of deep stacks.
func TestNoFrameRegisters(t *testing.T) {
	dir := t.TempDir()
	cores := crashBugs(t, dir, "null", "assert")
	skip, err := triage.NewSkipList(triage.DefaultPatterns())
	if err != nil {
		t.Fatal(err)
	}
	run := func(noRegs bool) map[string]*triage.Result {
		cfg := triage.Config{Jobs: 1, Signer: triage.Signer{Skip: skip}, Binaries: []string{dir},
			Analyze: analyze.Options{MaxFrames: 256}, NoFrameRegisters: noRegs}
		out := map[string]*triage.Result{}
		var paths []string
		for _, c := range cores {
			paths = append(paths, c.path)
		}
		if err := triage.Run(paths, cfg, func(r *triage.Result) { out[r.Input.Name] = r }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	// withRegs numbers the frames the walk found (not inlined calls,
	// which share their frame's registers, nor the tail calls found
	// between two frames, which have none) and lists those with
	// registers.
	withRegs := func(th *report.Thread) (listed []int, frames int) {
		for _, f := range th.Frames {
			if f.Inlined || f.Trust == report.TrustTailCall {
				continue
			}
			if f.Registers != nil {
				listed = append(listed, frames)
			}
			frames++
		}
		return listed, frames
	}
	all, some := run(false), run(true)
	for _, c := range cores {
		a, s := all[c.path], some[c.path]
		if a == nil || s == nil || a.Err != nil || s.Err != nil {
			t.Fatalf("%s: results %+v and %+v", c.path, a, s)
		}
		if a.Sig.ID != s.Sig.ID || a.Sig.Text != s.Sig.Text || a.Partial != s.Partial {
			t.Errorf("%s: signature %q (%s) with every frame's registers, %q (%s) without", c.path, a.Sig.Text, a.Sig.ID, s.Sig.Text, s.Sig.ID)
		}
		th := crashed(s.Report)
		listed, frames := withRegs(th)
		if frames < 4 || len(listed) != 2 || listed[0] != 0 || listed[1] != 1 {
			t.Errorf("%s: without frame registers, frames %v of %d list registers, want 0 and 1", c.path, listed, frames)
		}
		if listed, frames := withRegs(crashed(a.Report)); len(listed) != frames {
			t.Errorf("%s: with frame registers, frames %v of %d list registers, want all", c.path, listed, frames)
		}
	}
}

// crashed is a report's crashed thread.
func crashed(r *report.Report) *report.Thread {
	for i := range r.Threads {
		if r.Threads[i].Crashed {
			return &r.Threads[i]
		}
	}
	return nil
}

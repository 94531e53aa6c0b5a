package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/refbt"
)

// A crashCase is one crashed program with the three tools' views of its core.
type crashCase struct {
	crash
	GDB, EU       map[int]*refbt.Thread
	GDBOut, EUOut string
	Report        *report
	Run           run
}

// crashAndUnwind builds and crashes a program, asks gdb and eu-stack for
// their backtraces, then runs coreunwind --format json (with flags) on the
// core and the executable.
func crashAndUnwind(t *testing.T, prog string, env []string, flags []string, args ...string) *crashCase {
	t.Helper()
	exe := buildProgram(t, prog)
	c := &crashCase{crash: crashProgram(t, exe, env, args...)}
	c.references(t)
	c.Report, c.Run = unwindJSON(t, flags, c.Core, c.Exe)
	return c
}

// references runs both reference tools on the case's core.
func (c *crashCase) references(t *testing.T, euExtra ...string) {
	t.Helper()
	c.GDB, c.GDBOut = runGDB(t, c.Exe, c.Core)
	c.EU, c.EUOut = runEuStack(t, c.Exe, c.Core, euExtra...)
}

// crashed returns coreunwind's crashed thread, failing if there is none.
func (c *crashCase) crashed(t *testing.T) *reportThread {
	t.Helper()
	for i := range c.Report.Threads {
		if c.Report.Threads[i].Crashed {
			return &c.Report.Threads[i]
		}
	}
	if th := c.Report.thread(c.Report.Core.CrashedTID); th != nil {
		return th
	}
	t.Fatalf("coreunwind's report marks no thread as crashed (crashed_tid=%d)", c.Report.Core.CrashedTID)
	return nil
}

// expectSignal checks the report's signal number and name.
func (c *crashCase) expectSignal(t *testing.T, num int, name string) {
	t.Helper()
	s := c.Report.Core.Signal
	if s == nil {
		t.Errorf("report has no signal; want %s (%d)", name, num)
		return
	}
	if s.Number != num || s.Name != name {
		t.Errorf("signal = %d %q, want %d %q", s.Number, s.Name, num, name)
	}
}

// expectFunctions checks that the thread's frames name the given functions
// in this order (other frames may come between them).
func expectFunctions(t *testing.T, th *reportThread, want ...string) {
	t.Helper()
	k := 0
	for _, f := range th.Frames {
		if k < len(want) && normalizeFunc(f.Function) == want[k] {
			k++
		}
	}
	if k < len(want) {
		t.Errorf("thread %d: want functions %v in this order; %q not found after %v\n%s",
			th.TID, want, want[k], want[:k], formatFrames(th, 40))
	}
}

// frameOf returns the first frame naming fn, or nil.
func frameOf(th *reportThread, fn string) *reportFrame {
	for i := range th.Frames {
		if normalizeFunc(th.Frames[i].Function) == fn {
			return &th.Frames[i]
		}
	}
	return nil
}

// refFrameOf returns the reference tool's first frame naming fn, or nil.
func refFrameOf(th *refbt.Thread, fn string) *refbt.Frame {
	if th == nil {
		return nil
	}
	for i := range th.Frames {
		if normalizeFunc(th.Frames[i].Func) == fn {
			return &th.Frames[i]
		}
	}
	return nil
}

// expectLines checks, for each named function, coreunwind's first frame
// for it against the source line the reference tools give. Where gdb and
// eu-stack agree (file base name and line), coreunwind must say the same;
// where they differ (gdb sometimes reports the line of an inlined callee
// for a return address after a noreturn call), either answer is accepted.
func (c *crashCase) expectLines(t *testing.T, th *reportThread, funcs ...string) {
	t.Helper()
	for _, fn := range funcs {
		g, e := refFrameOf(c.GDB[th.TID], fn), refFrameOf(c.EU[th.TID], fn)
		if g == nil || g.File == "" {
			t.Errorf("gdb has no frame with a source line for %s", fn)
			continue
		}
		f := frameOf(th, fn)
		if f == nil {
			t.Errorf("coreunwind has no frame for %s (gdb: %s)", fn, g.Raw)
			continue
		}
		same := func(r *refbt.Frame) bool {
			return r != nil && filepath.Base(f.File) == filepath.Base(r.File) && f.Line == r.Line
		}
		agree := e != nil && filepath.Base(e.File) == filepath.Base(g.File) && e.Line == g.Line
		if same(g) || (!agree && same(e)) {
			continue
		}
		eRaw := "(none)"
		if e != nil {
			eRaw = e.Raw
		}
		t.Errorf("%s: coreunwind says %s:%d\n  gdb:        %s\n  eu-stack:   %s\n  coreunwind: %s",
			fn, f.File, f.Line, g.Raw, eRaw, f)
	}
}

func formatFrames(th *reportThread, limit int) string {
	var b strings.Builder
	for i, f := range th.Frames {
		if i == limit {
			fmt.Fprintf(&b, "    ... %d more\n", len(th.Frames)-limit)
			break
		}
		fmt.Fprintf(&b, "    %s\n", f)
	}
	if th.Error != nil {
		fmt.Fprintf(&b, "    error: %s\n", *th.Error)
	}
	return b.String()
}

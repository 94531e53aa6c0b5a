package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// A tail call (a function ending in a jump) leaves no return address:
// gdb rebuilds the functions that jumped from the compiler's call-site
// records and marks them TAILCALL_FRAME. coreunwind marks them trust
// "tail_call". The tests ask gdb's Python API which of its frames are
// tail-call frames and compare them, thread by thread, with coreunwind's.

// tailFrame is one tail-call frame as both tools name it.
type tailFrame struct {
	PC   uint64
	Func string // normalized (normalizeFunc)
	Line int
}

func (f tailFrame) String() string { return fmt.Sprintf("%#x %s:%d", f.PC, f.Func, f.Line) }

// gdbTailScript prints every tail-call frame of every thread.
const gdbTailScript = `python
import gdb
for inf in gdb.inferiors():
    for th in inf.threads():
        th.switch()
        f = gdb.newest_frame()
        n = 0
        while f is not None and n < 1000:
            if f.type() == gdb.TAILCALL_FRAME:
                print("@@tail %d %#x %s %d" % (th.ptid[1], f.pc(), f.name(), f.find_sal().line))
            n += 1
            try:
                f = f.older()
            except gdb.error:
                break
end
`

var gdbTailLine = regexp.MustCompile(`(?m)^@@tail (\d+) 0x([0-9a-f]+) (\S+) (\d+)$`)

// gdbTailCalls returns gdb's tail-call frames by thread, innermost first.
func gdbTailCalls(t *testing.T, exe, core string) map[int][]tailFrame {
	t.Helper()
	gdb := testenv.NeedTool(t, "gdb")
	script := filepath.Join(t.TempDir(), "tailcalls.gdb")
	if err := os.WriteFile(script, []byte(gdbTailScript), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runTool(t, gdb, "-batch", "-nx", "-ex", "set backtrace past-main on", "-x", script, exe, core)
	if strings.Contains(out, "Python scripting is not supported") {
		testenv.Unavailable(t, "gdb without Python")
	}
	got := map[int][]tailFrame{}
	for _, m := range gdbTailLine.FindAllStringSubmatch(out, -1) {
		tid, _ := strconv.Atoi(m[1])
		pc, _ := strconv.ParseUint(m[2], 16, 64)
		line, _ := strconv.Atoi(m[4])
		got[tid] = append(got[tid], tailFrame{PC: pc, Func: normalizeFunc(m[3]), Line: line})
	}
	return got
}

// reportTailCalls returns coreunwind's tail-call frames by thread.
func reportTailCalls(rep *report) map[int][]tailFrame {
	got := map[int][]tailFrame{}
	for _, th := range rep.Threads {
		for _, f := range th.Frames {
			if f.Trust != "tail_call" {
				continue
			}
			pc, _ := f.pc()
			got[th.TID] = append(got[th.TID], tailFrame{PC: pc, Func: normalizeFunc(f.Function), Line: f.Line})
		}
	}
	return got
}

// compareTailCalls fails where coreunwind's tail-call frames differ from
// gdb's in any thread (an extra one as much as a missing one).
func compareTailCalls(t *testing.T, exe, core string, rep *report) map[int][]tailFrame {
	t.Helper()
	want := gdbTailCalls(t, exe, core)
	got := reportTailCalls(rep)
	tids := map[int]bool{}
	for tid := range want {
		tids[tid] = true
	}
	for tid := range got {
		tids[tid] = true
	}
	for tid := range tids {
		if !slices.Equal(got[tid], want[tid]) {
			t.Errorf("thread %d: tail-call frames\ncoreunwind: %v\ngdb:        %v", tid, got[tid], want[tid])
		}
	}
	return want
}

// TestTailCallDoubleFree: cleanup() jumps to buf_free(), which jumps to
// free(); the second free aborts. The two functions that jumped are on no
// stack; gdb shows them from the call-site records, and so must
// coreunwind, with the lines of the jumps.
func TestTailCallDoubleFree(t *testing.T) {
	t.Parallel()
	exe := buildProgram(t, "tailcall")
	// The test means something only if the compiler made tail calls.
	dis := runTool(t, testenv.NeedTool(t, "objdump"), "-d", "--no-show-raw-insn", exe)
	for _, fn := range []string{"cleanup", "buf_free"} {
		if !regexp.MustCompile(`(?m)^[0-9a-f]+ <` + fn + `>:\n\s+[0-9a-f]+:\s+jmp\s`).MatchString(dis) {
			t.Fatalf("%s does not start with a jmp (no tail call to test):\n%s", fn, dis)
		}
	}
	c := &crashCase{crash: crashProgram(t, exe, nil)}
	c.references(t)
	c.Report, c.Run = unwindJSON(t, nil, c.Core, c.Exe)
	compareWithReferences(t, c.GDB, c.EU, c.Report)
	c.expectSignal(t, 6, "SIGABRT")
	th := c.crashed(t)
	expectFunctions(t, th, "__libc_free", "buf_free", "cleanup", "main")
	want := compareTailCalls(t, c.Exe, c.Core, c.Report)
	var user []tailFrame
	for _, f := range want[th.TID] {
		if f.Func == "buf_free" || f.Func == "cleanup" {
			user = append(user, f)
		}
	}
	if len(user) != 2 || user[0].Func != "buf_free" || user[0].Line != 5 || user[1].Func != "cleanup" || user[1].Line != 6 {
		t.Errorf("gdb's tail-call frames are not buf_free at tailcall.c:5, cleanup at tailcall.c:6: %v", want[th.TID])
	}
	// The frames sit between free and main, innermost first.
	names := []string{}
	for _, f := range th.Frames {
		names = append(names, normalizeFunc(f.Function))
	}
	i := slices.Index(names, "buf_free")
	if i < 1 || i+2 >= len(names) || names[i-1] != "__libc_free" || names[i+1] != "cleanup" || names[i+2] != "main" {
		t.Errorf("want free, buf_free, cleanup, main in a row:\n%s", formatFrames(th, 20))
	}
	text := runCoreunwind(t, c.Core, c.Exe).Stdout
	for _, want := range []string{"in buf_free () at ", "tailcall.c:5 [tail call]\n", "in cleanup () at ", "tailcall.c:6 [tail call]\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
	// --unwind-only reads no DWARF: no call sites, no tail-call frames.
	uo, _ := unwindJSON(t, []string{"--unwind-only"}, c.Core, c.Exe)
	if n := len(reportTailCalls(uo)); n != 0 {
		t.Errorf("--unwind-only shows %d threads with tail-call frames", n)
	}
}

// TestTailCallsAsGDB: on programs of other cases, coreunwind's tail-call
// frames are gdb's, thread by thread: none where gdb shows none, and
// glibc's own (abort's __pthread_kill_internal, with libc6-dbg) where it
// shows them.
func TestTailCallsAsGDB(t *testing.T) {
	t.Parallel()
	// Each program with its arguments; altstack's main thread waits in
	// pthread_join, crashkinds asserts.
	for prog, args := range map[string][]string{
		"abort": nil, "null-O2-nofp": nil, "nullfn-O2": nil, "threads": nil, "inline": nil,
		"sighandler": {"segv"}, "altstack": nil, "crashkinds": {"assert"},
	} {
		t.Run(prog, func(t *testing.T) {
			t.Parallel()
			exe := buildProgram(t, prog)
			cr := crashProgram(t, exe, nil, args...)
			rep, _ := unwindJSON(t, nil, cr.Core, cr.Exe)
			want := compareTailCalls(t, cr.Exe, cr.Core, rep)
			n := 0
			for _, fs := range want {
				n += len(fs)
			}
			t.Logf("gdb shows %d tail-call frames", n)
		})
	}
}

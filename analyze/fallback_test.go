package analyze

import (
	"os"
	"slices"
	"testing"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/x86_64"
)

// The fallbacks (the rt_sigreturn trampoline recognized by its code, the
// frame-pointer chain, stack scanning) are proven against CFI on the same
// real core: the CFI walk is the reference, then the CFI of a range is
// hidden and the fallback must find the same frames.

const fallbackProg = `
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
int depth;
__attribute__((noinline)) int c3(int *p) { return *p + depth; }
__attribute__((noinline)) int c2(int *p) { int r = c3(p); depth++; return r + 1; }
__attribute__((noinline)) int c1(int *p) { int r = c2(p); depth++; return r + 2; }
static void handler(int sig) { abort(); }
int main(int argc, char **argv) {
	if (argc > 1) signal(SIGSEGV, handler);
	return c1(argc > 5 ? &depth : 0);
}
`

// hideCFI is a target whose unwind info for [lo, hi) is missing.
type hideCFI struct {
	*target
	lo, hi uint64
}

func (h hideCFI) FindProcInfo(ip uint64) (*unwind.ProcInfo, error) {
	if ip >= h.lo && ip < h.hi {
		return nil, unwind.ErrNoInfo
	}
	return h.target.FindProcInfo(ip)
}

type walked struct {
	pcs    []uint64
	trusts []unwind.Trust
	signal []bool
}

func walkCrashed(t *testing.T, as unwind.AddrSpace, c *corefile.Core) walked {
	t.Helper()
	arch := x86_64.Arch{}
	th := c.Thread(c.CrashedTID)
	init, err := arch.FrameFromThread(&unwind.ThreadState{GRegs: th.GRegs, Order: c.ByteOrder()})
	if err != nil {
		t.Fatal(err)
	}
	cur, err := unwind.NewCursor(as, arch, init, unwind.Options{Cache: unwind.NewCache(unwind.CacheGlobal)})
	if err != nil {
		t.Fatal(err)
	}
	var w walked
	for {
		w.pcs = append(w.pcs, cur.PC())
		w.trusts = append(w.trusts, cur.Frame().Trust)
		w.signal = append(w.signal, cur.IsSignalFrame())
		if more, err := cur.Step(); !more {
			if err != nil {
				t.Logf("walk ended: %v", err)
			}
			return w
		}
	}
}

func crashTarget(t *testing.T, flags []string, args ...string) (*target, *corefile.Core) {
	t.Helper()
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "fallback", fallbackProg, flags...)
	corePath, _ := testenv.Crash(t, exe, args...)
	c, err := corefile.Open(corePath, corefile.Options{Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	objs := elfx.NewCache()
	t.Cleanup(func() { objs.Close() })
	tg, _ := newTarget(c, objs, []string{"/usr/lib/debug"}, false)
	return tg, c
}

// mainModule returns the executable's address range.
func mainModule(t *testing.T, tg *target) (uint64, uint64) {
	for _, m := range tg.modules {
		if m.core.Main {
			return m.start, m.end
		}
	}
	t.Fatal("no main executable module")
	return 0, 0
}

func TestSigreturnByCode(t *testing.T) {
	tg, c := crashTarget(t, []string{"-O0", "-g"}, "handle")
	ref := walkCrashed(t, tg, c)
	sig := slices.Index(ref.signal, true)
	if sig < 0 || sig+1 >= len(ref.pcs) {
		t.Fatalf("CFI walk found no signal frame with a caller: %#x", ref.pcs)
	}
	if ref.trusts[sig+1] != unwind.TrustContext {
		t.Errorf("frame after the signal frame has trust %v, want context", ref.trusts[sig+1])
	}
	// Hide the trampoline's FDE (glibc starts it one byte early so that
	// the return-address lookup, pc-1, finds it).
	pi, err := tg.FindProcInfo(ref.pcs[sig] - 1)
	if err != nil {
		t.Fatalf("no FDE for the trampoline: %v", err)
	}
	got := walkCrashed(t, hideCFI{tg, pi.StartIP, pi.EndIP}, c)
	if !slices.Equal(got.pcs, ref.pcs) {
		t.Fatalf("without the trampoline's CFI:\n got %#x\nwant %#x", got.pcs, ref.pcs)
	}
	if !got.signal[sig] || got.trusts[sig+1] != unwind.TrustContext {
		t.Errorf("trampoline not recognized by its code: signal=%v trust=%v", got.signal[sig], got.trusts[sig+1])
	}
}

// framesIn counts the leading frames of w after frame 0 up to the first
// one outside [lo, hi): the frames a fallback must recover.
func checkFallback(t *testing.T, flags []string, want unwind.Trust) {
	tg, c := crashTarget(t, flags)
	ref := walkCrashed(t, tg, c)
	lo, hi := mainModule(t, tg)
	got := walkCrashed(t, hideCFI{tg, lo, hi}, c)
	// c3 <- c2 <- c1 (<- main at -O0): every frame of the executable
	// below frame 0 must be recovered exactly, by the fallback.
	n := 0
	for n+1 < len(ref.pcs) && ref.pcs[n+1] >= lo && ref.pcs[n+1] < hi {
		n++
	}
	if n < 2 {
		t.Fatalf("reference walk has %d caller frames in the executable: %#x", n, ref.pcs)
	}
	if len(got.pcs) < n+1 || !slices.Equal(got.pcs[:n+1], ref.pcs[:n+1]) {
		t.Fatalf("without CFI:\n got %#x\nwant %#x (first %d)", got.pcs, ref.pcs, n+1)
	}
	for i := 1; i <= n; i++ {
		if got.trusts[i] != want {
			t.Errorf("frame %d trust %v, want %v", i, got.trusts[i], want)
		}
	}
}

func TestFramePointerFallback(t *testing.T) {
	checkFallback(t, []string{"-O0", "-g"}, unwind.TrustFramePointer)
}

func TestStackScanFallback(t *testing.T) {
	checkFallback(t, []string{"-O2", "-g", "-fomit-frame-pointer"}, unwind.TrustScan)
}

// Every frame reports its own CFA: the value of the caller's stack
// pointer at the call. At -O0 with frame pointers that is rbp+16 inside
// each function, and on x86_64 it is the next frame's sp.
func TestFramesCarryTheirOwnCFA(t *testing.T) {
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "cfa", fallbackProg, "-O0", "-g")
	core, _ := testenv.Crash(t, exe)
	r, err := Analyze(core, Options{Executable: exe, CrashedOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := corefile.Open(core, corefile.Options{Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	init, err := x86_64.Arch{}.FrameFromThread(&unwind.ThreadState{GRegs: c.Thread(c.CrashedTID).GRegs, Order: c.ByteOrder()})
	if err != nil {
		t.Fatal(err)
	}
	frames := r.Threads[0].Frames
	if len(frames) < 4 || frames[0].CFA == nil {
		t.Fatalf("frame 0 has no CFA (%d frames)", len(frames))
	}
	if rbp, _ := init.Get(x86_64.RBP); uint64(*frames[0].CFA) != rbp+16 {
		t.Errorf("frame 0 (%s) CFA %#x, want rbp+16 = %#x", *frames[0].Function, uint64(*frames[0].CFA), rbp+16)
	}
	for i := 0; i+1 < len(frames); i++ {
		if frames[i].CFA == nil || frames[i+1].SP == nil || *frames[i].CFA != *frames[i+1].SP {
			t.Errorf("frame %d CFA %v, frame %d sp %v: a frame's CFA is its caller's sp", i, frames[i].CFA, i+1, frames[i+1].SP)
		}
	}
	if last := frames[len(frames)-1]; last.CFA != nil {
		t.Errorf("outermost frame has CFA %#x; nothing computed one", uint64(*last.CFA))
	}
}

const coroutineProg = `
#include <ucontext.h>
static ucontext_t main_ctx, co_ctx;
static char stack[65536];
__attribute__((noinline)) static void boom(volatile int *p) { *p = 1; }
__attribute__((noinline)) static void co_body(void) { boom(0); }
int main(void) {
	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = stack;
	co_ctx.uc_stack.ss_size = sizeof stack;
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, co_body, 0);
	swapcontext(&main_ctx, &co_ctx);
	return 0;
}
`

// A coroutine's first function returns to glibc's __start_context, whose
// entry makecontext pushed as a return address: pc-1 lies before the
// function, and the frame is named by the function that starts at pc
// (gdb and eu-stack print ?? there).
func TestMakecontextTrampolineNamed(t *testing.T) {
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "co", coroutineProg, "-O1", "-g")
	core, _ := testenv.Crash(t, exe)
	r, err := Analyze(core, Options{Executable: exe, CrashedOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range r.Threads[0].Frames {
		n := "??"
		if f.Function != nil {
			n = *f.Function
		}
		names = append(names, n)
	}
	if len(names) < 3 || names[0] != "boom" || names[1] != "co_body" {
		t.Fatalf("frames %q, want boom, co_body, __start_context", names)
	}
	if names[2] != "__start_context" {
		// The name lives in glibc's .symtab, in its debug file.
		if _, err := os.Stat("/usr/lib/debug/.build-id"); err != nil {
			testenv.Unavailable(t, "libc6-dbg not installed")
		}
		t.Errorf("frame 2 is %q, want __start_context (frames %q)", names[2], names)
	}
}

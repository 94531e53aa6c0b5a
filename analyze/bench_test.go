package analyze

import (
	"os"
	"testing"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/x86_64"
)

// benchProg crashes with 32 threads blocked at different depths and the
// main thread 2000 frames deep: many steps, many symbol lookups.
const benchProg = `
#include <pthread.h>
#include <unistd.h>
__attribute__((noinline)) int rec(int n, int *p) { if (n == 0) return *p; return rec(n - 1, p) + 1; }
__attribute__((noinline)) void *worker(void *a) { long d = (long)a; if (d > 0) worker((void *)(d - 1)); else pause(); return 0; }
int main(void) {
	pthread_t t;
	for (long i = 0; i < 32; i++) pthread_create(&t, 0, worker, (void *)(i % 20));
	sleep(1);
	return rec(2000, 0);
}
`

// benchCore returns a core to measure: $COREUNWIND_BENCH_CORE (with
// $COREUNWIND_BENCH_EXE) when set, else one crashed now.
func benchCore(b *testing.B) (core, exe string) {
	if core = os.Getenv("COREUNWIND_BENCH_CORE"); core != "" {
		return core, os.Getenv("COREUNWIND_BENCH_EXE")
	}
	exe = testenv.BuildC(b, b.TempDir(), "bench", benchProg, "-O0", "-g")
	core, _ = testenv.Crash(b, exe)
	return core, exe
}

// BenchmarkAnalyzeCore is a whole report: open, unwind every thread,
// names, lines and inlines; objects opened afresh each time, as one run
// of the command does.
func BenchmarkAnalyzeCore(b *testing.B) {
	core, exe := benchCore(b)
	for b.Loop() {
		if _, err := Analyze(core, Options{Executable: exe}); err != nil {
			b.Fatal(err)
		}
	}
}

// openTarget opens core and the objects of its modules, closed when b
// ends: what the unwinder benchmarks walk.
func openTarget(b *testing.B, core, exe string) (*corefile.Core, *target) {
	c, err := corefile.Open(core, corefile.Options{Executable: exe})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	objs := elfx.NewCache()
	b.Cleanup(func() { objs.Close() })
	tg, _ := newTarget(c, objs, nil, false)
	return c, tg
}

// BenchmarkUnwindOnly walks every thread without symbolizing, with warm
// objects: the unwinder's own speed (compare with libunwind in bench/).
func BenchmarkUnwindOnly(b *testing.B) {
	core, exe := benchCore(b)
	c, tg := openTarget(b, core, exe)
	arch := x86_64.Arch{}
	frames := 0
	for b.Loop() {
		cache := unwind.NewCache(unwind.CacheGlobal)
		for _, th := range c.Threads {
			init, err := arch.FrameFromThread(&unwind.ThreadState{GRegs: th.GRegs, Order: c.ByteOrder()})
			if err != nil {
				b.Fatal(err)
			}
			cur, err := unwind.NewCursor(tg, arch, init, unwind.Options{Cache: cache})
			if err != nil {
				b.Fatal(err)
			}
			for frames++; ; frames++ {
				if more, _ := cur.Step(); !more {
					break
				}
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(frames), "ns/frame")
}

// deepProg overflows its 8 MiB stack in a -> b -> a recursion: about
// 131,000 frames of 64 bytes in one thread.
const deepProg = `
#include <sys/resource.h>
volatile unsigned long calls;
int b(int n);
__attribute__((noinline)) int a(int n) { volatile int pad[8]; calls++; pad[0] = n; return b(n + 1) + pad[0]; }
__attribute__((noinline)) int b(int n) { volatile int pad[8]; calls++; pad[0] = n; return a(n + 1) + pad[0]; }
int main(void) {
	struct rlimit rl;
	if (getrlimit(RLIMIT_STACK, &rl) == 0) { rl.rlim_cur = 8 << 20; setrlimit(RLIMIT_STACK, &rl); }
	return a(0);
}
`

// deepCore is a stack-overflow core, crashed once per benchmark run.
func deepCore(b *testing.B) (core, exe string) {
	exe = testenv.BuildC(b, b.TempDir(), "deep", deepProg, "-O0", "-g")
	core, _ = testenv.Crash(b, exe)
	return core, exe
}

// BenchmarkUnwindDeep walks the 131,000 frames of a stack overflow with
// warm objects and rule cache: the per-frame cost of the cursor and the
// x86_64 stepper on the longest stacks there are.
func BenchmarkUnwindDeep(b *testing.B) {
	core, exe := deepCore(b)
	c, tg := openTarget(b, core, exe)
	arch := x86_64.Arch{}
	cache := unwind.NewCache(unwind.CacheGlobal)
	th := c.Threads[0]
	frames := 0
	for b.Loop() {
		init, err := arch.FrameFromThread(&unwind.ThreadState{GRegs: th.GRegs, Order: c.ByteOrder()})
		if err != nil {
			b.Fatal(err)
		}
		cur, err := unwind.NewCursor(tg, arch, init, unwind.Options{Cache: cache, MaxFrames: 1 << 20})
		if err != nil {
			b.Fatal(err)
		}
		n := 1
		for {
			more, err := cur.Step()
			if !more {
				if err != nil || n < 100_000 {
					b.Fatalf("walk ended after %d frames: %v", n, err)
				}
				break
			}
			n++
		}
		frames += n
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(frames), "ns/frame")
}

// BenchmarkAnalyzeDeep is the whole report of the stack overflow: open,
// walk, symbolize 131,000 frames.
func BenchmarkAnalyzeDeep(b *testing.B) {
	core, exe := deepCore(b)
	frames := 0
	for b.Loop() {
		r, err := Analyze(core, Options{Executable: exe})
		if err != nil {
			b.Fatal(err)
		}
		frames += len(r.Threads[0].Frames)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(frames), "ns/frame")
}

// BenchmarkStepWarm is one x86-64 step with a warm rule cache: every
// frame of every thread of the bench core, stepped in turn (op = one
// step). The frames are collected once; the timed loop calls the arch
// stepper alone, so the cursor's bookkeeping is not measured.
func BenchmarkStepWarm(b *testing.B) {
	core, exe := benchCore(b)
	c, tg := openTarget(b, core, exe)
	arch := x86_64.Arch{}
	cache := unwind.NewCache(unwind.CacheGlobal)
	var frames []*unwind.Frame
	for _, th := range c.Threads {
		init, err := arch.FrameFromThread(&unwind.ThreadState{GRegs: th.GRegs, Order: c.ByteOrder()})
		if err != nil {
			b.Fatal(err)
		}
		cur, err := unwind.NewCursor(tg, arch, init, unwind.Options{Cache: cache})
		if err != nil {
			b.Fatal(err)
		}
		for {
			f := unwind.NewFrame(arch.NumRegs())
			f.CopyFrom(cur.Frame())
			frames = append(frames, f)
			if more, _ := cur.Step(); !more {
				break
			}
		}
	}
	caller := unwind.NewFrame(arch.NumRegs())
	for _, f := range frames { // warm: every rule computed once
		caller.Reset()
		arch.Step(tg, cache, f, caller)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		caller.Reset()
		if _, err := arch.Step(tg, cache, frames[i], caller); err != nil && i+1 < len(frames) {
			_ = err // the outermost frames end with an error or StepEnd
		}
		if i++; i == len(frames) {
			i = 0
		}
	}
}

package analyze

import (
	"fmt"

	"github.com/coreunwind/coreunwind/goruntime"
	"github.com/coreunwind/coreunwind/unwind"
)

// A Go function called from C (a cgo export) runs on the goroutine's
// stack, entered from C through crosscall2 and runtime.cgocallback,
// which ran on the thread's system stack and switched stacks. The
// runtime's traceback, gdb's and the goroutine's own walk go on past
// cgocallback with what the goroutine's stack says: on a thread Go
// created, the Go code that had called C (cgocallback fakes its return
// to there); on a thread C created, a placeholder runtime.goexit. The C
// callers are on the system stack, above the stack pointer cgocallback
// left in m.g0.sched.sp: walked from there, they end in
// runtime.asmcgocall (the goroutine's own call into C, whose Go frames
// follow) or in the C thread's first frame.

// callbackCallers is frames, a goroutine's walk, with the C frames that
// called its innermost runtime.cgocallback inserted after that frame;
// spliced says it changed. frames is returned unchanged, with a warning,
// when the system stack no longer holds them: a panic that unwinds
// through the callback puts m.g0.sched.sp back and the crash's own code
// reuses that stack.
func callbackCallers(t *target, arch unwind.Arch, cache *unwind.Cache, r *goruntime.Reader, g *goruntime.Goroutine, frames []rawFrame, opts Options) (out []rawFrame, spliced bool, warning string) {
	k := -1
	for i, f := range frames {
		if gf, ok := t.goFrameAt(f.lookup); ok && gf.cgoCallback {
			k = i
			break
		}
	}
	if k < 0 {
		return frames, false, ""
	}
	// A callback locks its goroutine to the thread: a goroutine
	// parked in one has no m but that one.
	m := g.M
	if m == 0 {
		m = g.LockedM
	}
	sp, ok := r.SystemStackSP(t, m)
	ga, isGo := arch.(unwind.GoArch)
	if !ok || !isGo {
		return frames, false, fmt.Sprintf("goroutine %d: the C frames that called it are not shown: its thread's system stack pointer (m.g0.sched.sp) cannot be read", g.ID)
	}
	walk := func(sched unwind.GoSched, maxFrames int) ([]rawFrame, error) {
		initial := unwind.NewFrame(arch.NumRegs())
		ga.GoFrame(sched, initial)
		cur, err := unwind.NewCursor(t, arch, initial, unwind.Options{Cache: cache, MaxFrames: maxFrames, Classify: t.classifyFrame, ResumePC: true})
		if err != nil {
			return nil, err
		}
		fs, _, err := walkFrames(t, cur, arch, 0)
		return fs, err
	}
	cc2, ownCrossCall2 := arch.(unwind.GoCrossCall2Arch)
	maxFrames := opts.MaxFrames
	if ownCrossCall2 {
		maxFrames = 2 // cgocallback and crosscall2: the rest below
	}
	c, err := walk(unwind.GoSched{PC: frames[k].pc, SP: sp}, maxFrames)
	// c[0] is cgocallback's frame on the system stack; its caller
	// must be crosscall2, or that stack holds something else now.
	if f, ok := t.goFrameAt(lookupAt(c, 1)); !ok || !f.cCallsGo {
		return frames, false, fmt.Sprintf("goroutine %d: the C frames that called it are not in the core: its thread's system stack at %#x holds other frames now (a panic through the callback reuses it)", g.ID, sp)
	}
	if ownCrossCall2 {
		c = c[:2]
		var sched unwind.GoSched
		if sched, err = cc2.GoCrossCall2Caller(t, c[1].sp); err == nil {
			var callers []rawFrame
			callers, err = walk(sched, opts.MaxFrames)
			c = append(c, callers...)
		}
	}
	if err != nil {
		warning = fmt.Sprintf("goroutine %d: the C frames that called it end early: %v", g.ID, err)
	}
	c = c[1:]
	out = append(frames[:k+1:k+1], c...)
	rest := frames[k+1:]
	last, _ := t.goFrameAt(c[len(c)-1].lookup)
	if !last.cgoCall && len(rest) == 1 && t.classifyFrame(rest[0].lookup, false) == unwind.FrameOutermost {
		// A thread C created: the goroutine's stack ends in a
		// placeholder, the C thread's own frames are the callers.
		rest = nil
	}
	return append(out, rest...), true, warning
}

// lookupAt is frames[i]'s lookup address, 0 past the end.
func lookupAt(frames []rawFrame, i int) uint64 {
	if i < len(frames) {
		return frames[i].lookup
	}
	return 0
}

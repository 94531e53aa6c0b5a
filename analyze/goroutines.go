package analyze

import (
	"fmt"

	"github.com/coreunwind/coreunwind/goruntime"
	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/unwind"
)

// goWalk is one goroutine and its raw frames, before symbolization.
type goWalk struct {
	g      report.Goroutine
	frames []rawFrame
	// gopc and parent say who created it (report.GoCreator), named
	// with the frames.
	gopc, parent uint64
	// thread and from: the goroutine runs on the thread of walks'
	// index thread, its frames are that walk's from from on (onThread
	// false: its frames are its own walk).
	onThread     bool
	thread, from int
}

// goProgram is what a Go program's runtime says: its goroutines, walked,
// the crashed one first, and the value the crashed one panicked with
// ("" when it did not, or it cannot be read).
type goProgram struct {
	walks []goWalk
	panic string
	// reader reads the runtime's structures (the fatal error's message).
	reader *goruntime.Reader
}

// panicDetail is the crash analysis's sentence for a Go panic, "" for
// none.
func (p *goProgram) panicDetail() string {
	if p == nil || p.panic == "" || len(p.walks) == 0 {
		return ""
	}
	return fmt.Sprintf("goroutine %d panicked: %s", p.walks[0].g.ID, p.panic)
}

// goroutineWalks reads a Go program's goroutines and walks each: a
// goroutine running on a thread (the crashed one among them) has that
// thread's frames from the first one on its stack; a parked one is
// walked from the registers the runtime saved for it (g.sched). nil
// when the executable is not a Go program; warnings say what could not
// be read.
func goroutineWalks(t *target, arch unwind.Arch, cache *unwind.Cache, threads []report.Thread, walks [][]rawFrame, opts Options) (*goProgram, []string) {
	if arch == nil {
		return nil, nil
	}
	m := t.mainModule()
	obj := m.obj()
	if obj == nil {
		return nil, nil
	}
	r, warnings := goReader(t, m, obj)
	if r == nil {
		return nil, warnings
	}
	gs, gwarnings := r.Goroutines(t)
	warnings = append(warnings, gwarnings...)
	if opts.CrashedOnly {
		gs = runningGoroutines(gs)
	}
	out := make([]goWalk, len(gs))
	cgo := cgoCallers(t, arch, walks)
	own := make([][]rawFrame, len(gs))
	callbackWarnings := make([]string, len(gs))
	spliced := make([]bool, len(gs))
	now := r.Now(t)
	parallel(len(gs), func(i int) {
		out[i] = walkGoroutine(t, arch, cache, &gs[i], threads, walks, opts)
		if out[i].g.Error == nil {
			out[i].frames, spliced[i], callbackWarnings[i] = callbackCallers(t, arch, cache, r, &gs[i], out[i].frames, opts)
		}
		goroutineInfo(r, t, &gs[i], now, &out[i].g)
		onThread(r, t, &gs[i], threads, &out[i].g)
		out[i].gopc, out[i].parent = gs[i].GoPC, gs[i].ParentID
		if th, ok := cgo[gs[i].Addr]; ok && gs[i].Status == goruntime.StatusSyscall && out[i].g.Error == nil {
			// In C: the thread's C frames, then its own.
			own[i] = out[i].frames
			out[i].frames = append(walks[th][:len(walks[th]):len(walks[th])], own[i]...)
			out[i].g.TID, out[i].g.Crashed = report.Ptr(threads[th].TID), threads[th].Crashed
		}
	})
	for i := range gs {
		if callbackWarnings[i] != "" {
			warnings = append(warnings, callbackWarnings[i])
		}
		// The thread running a callback from C has its C frames too.
		if spliced[i] && out[i].onThread {
			w := &out[i]
			walks[w.thread] = append(walks[w.thread][:w.from:w.from], w.frames...)
		}
	}
	// The thread running C for a goroutine continues with its frames.
	for i := range gs {
		if th, ok := cgo[gs[i].Addr]; ok && own[i] != nil {
			walks[th] = append(walks[th], own[i]...)
		}
	}
	// The crashed goroutine first, as the runtime prints it.
	p := &goProgram{walks: out, reader: r}
	for i := range out {
		if out[i].g.Crashed {
			p.panic, _ = r.Panic(t, &gs[i])
			crashed := out[i]
			copy(out[1:i+1], out[:i])
			out[0] = crashed
			break
		}
	}
	if opts.CrashedOnly {
		p.walks = crashedOnly(out)
	}
	return p, warnings
}

// onThread names the thread (g.m's m.procid) of a goroutine running or
// in a system call whose stack no thread's walk reached: one that
// switched to the system stack (runtime.throw does) was walked from
// the registers it saved there, and is the crashed goroutine when its
// thread is the crashed one.
func onThread(r *goruntime.Reader, t *target, g *goruntime.Goroutine, threads []report.Thread, rg *report.Goroutine) {
	if rg.TID != nil || g.Status != goruntime.StatusRunning && g.Status != goruntime.StatusSyscall {
		return
	}
	tid, ok := r.ThreadID(t, g.M)
	if !ok {
		return
	}
	rg.TID = report.Ptr(int(tid))
	for i := range threads {
		if threads[i].TID == int(tid) && threads[i].Crashed && rg.Error == nil {
			rg.Crashed = true
		}
	}
}

// runningGoroutines are the goroutines that may be the crashed one: those
// on a thread. A report of the crashed thread only walks no parked one.
func runningGoroutines(gs []goruntime.Goroutine) []goruntime.Goroutine {
	var out []goruntime.Goroutine
	for _, g := range gs {
		if g.Status == goruntime.StatusRunning || g.Status == goruntime.StatusSyscall {
			out = append(out, g)
		}
	}
	return out
}

// crashedOnly keeps the crashed goroutine of walks (the crashed one
// first), none if no goroutine crashed.
func crashedOnly(walks []goWalk) []goWalk {
	if len(walks) > 0 && walks[0].g.Crashed {
		return walks[:1]
	}
	return nil
}

// walkGoroutine finds one goroutine's frames.
func walkGoroutine(t *target, arch unwind.Arch, cache *unwind.Cache, g *goruntime.Goroutine, threads []report.Thread, walks [][]rawFrame, opts Options) goWalk {
	w := goWalk{g: report.Goroutine{ID: g.ID, State: g.State()}}
	fail := func(err error) goWalk {
		w.g.Error = report.Ptr(err.Error())
		return w
	}
	if g.Status == goruntime.StatusRunning || g.Status == goruntime.StatusSyscall {
		for i, frames := range walks {
			for j, f := range frames {
				if f.hasSP && f.sp >= g.StackLo && f.sp < g.StackHi {
					w.g.TID, w.g.Crashed = report.Ptr(threads[i].TID), threads[i].Crashed
					w.frames = frames[j:]
					w.onThread, w.thread, w.from = true, i, j
					if threads[i].Error != nil {
						w.g.Error = threads[i].Error
					}
					return w
				}
			}
		}
	}
	sched := unwind.GoSched{PC: g.PC, SP: g.SP, LR: g.LR, BP: g.BP}
	if g.Status == goruntime.StatusSyscall {
		sched = unwind.GoSched{PC: g.SyscallPC, SP: g.SyscallSP, BP: g.SyscallBP}
	}
	if sched.PC == 0 || sched.SP == 0 {
		if g.Status == goruntime.StatusRunning {
			return fail(fmt.Errorf("goroutine %d is running on no thread of the core", g.ID))
		}
		return fail(fmt.Errorf("goroutine %d: no saved pc and sp", g.ID))
	}
	ga, ok := arch.(unwind.GoArch)
	if !ok {
		return fail(fmt.Errorf("goroutine %d: no Go register set for %s", g.ID, arch.Name()))
	}
	initial := unwind.NewFrame(arch.NumRegs())
	ga.GoFrame(sched, initial)
	cur, err := unwind.NewCursor(t, arch, initial, unwind.Options{Cache: cache, MaxFrames: opts.MaxFrames, Classify: t.classifyFrame, ResumePC: true})
	if err != nil {
		return fail(err)
	}
	frames, _, err := walkFrames(t, cur, arch, 0)
	w.frames = frames
	if err != nil {
		return fail(err)
	}
	return w
}

// mainModule is the executable's module, nil if the core names none.
func (t *target) mainModule() *module {
	for _, m := range t.modules {
		if m.core.Main {
			return m
		}
	}
	return nil
}

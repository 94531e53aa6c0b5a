package analyze

import (
	"fmt"

	"github.com/coreunwind/coreunwind/goruntime"
	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/x86_64"
)

// goWalk is one goroutine and its raw frames, before symbolization.
type goWalk struct {
	g      report.Goroutine
	frames []rawFrame
	// gopc and parent say who created it (report.GoCreator), named
	// with the frames.
	gopc, parent uint64
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
	syms := obj.SymbolValues(goruntime.SymbolNames...)
	if !goruntime.IsGo(syms) {
		return nil, nil
	}
	d, err := obj.DWARF()
	if err != nil {
		return nil, []string{fmt.Sprintf("goroutines: %v", err)}
	}
	r, err := goruntime.NewReader(goruntime.Binary{Symbols: syms, DWARF: d, Bias: m.bias, PtrSize: t.PtrSize(), Order: t.ByteOrder()})
	if err != nil {
		return nil, []string{fmt.Sprintf("goroutines: %v", err)}
	}
	gs, warnings := r.Goroutines(t)
	if opts.CrashedOnly {
		gs = runningGoroutines(gs)
	}
	out := make([]goWalk, len(gs))
	now := r.Now(t)
	parallel(len(gs), func(i int) {
		out[i] = walkGoroutine(t, arch, cache, &gs[i], threads, walks, opts)
		goroutineInfo(r, t, &gs[i], now, &out[i].g)
		onThread(r, t, &gs[i], threads, &out[i].g)
		out[i].gopc, out[i].parent = gs[i].GoPC, gs[i].ParentID
	})
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
					if threads[i].Error != nil {
						w.g.Error = threads[i].Error
					}
					return w
				}
			}
		}
	}
	pc, sp, bp := g.PC, g.SP, g.BP
	if g.Status == goruntime.StatusSyscall {
		pc, sp, bp = g.SyscallPC, g.SyscallSP, g.SyscallBP
	}
	if pc == 0 || sp == 0 {
		if g.Status == goruntime.StatusRunning {
			return fail(fmt.Errorf("goroutine %d is running on no thread of the core", g.ID))
		}
		return fail(fmt.Errorf("goroutine %d: no saved pc and sp", g.ID))
	}
	initial := unwind.NewFrame(arch.NumRegs())
	initial.Set(arch.PCReg(), pc, unwind.SaveLoc{Kind: unwind.LocValue})
	initial.Set(arch.SPReg(), sp, unwind.SaveLoc{Kind: unwind.LocValue})
	if fp, ok := goFramePointer[arch.Name()]; ok && bp != 0 {
		initial.Set(fp, bp, unwind.SaveLoc{Kind: unwind.LocValue})
	}
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

// goFramePointer is the frame pointer register, by arch, that g.sched.bp
// restores.
var goFramePointer = map[string]int{"x86_64": x86_64.RBP}

// mainModule is the executable's module, nil if the core names none.
func (t *target) mainModule() *module {
	for _, m := range t.modules {
		if m.core.Main {
			return m
		}
	}
	return nil
}

package pyruntime

import (
	"fmt"

	"github.com/coreunwind/coreunwind/pyruntime/pylayout"
)

// Thread is one Python thread state.
type Thread struct {
	// Addr is the thread state's address.
	Addr uint64
	// NativeID is the kernel's id of the thread (native_thread_id,
	// 3.11+; 0 before): the core's thread. ThreadID is its pthread_t, as
	// faulthandler prints it ("Thread 0x00007f...").
	NativeID, ThreadID uint64
	// HoldsGIL: the thread holds the global interpreter lock.
	HoldsGIL bool
	// Frames are its Python frames, the innermost first.
	Frames []Frame
	// FramesError says why Frames stop before the thread's first frame
	// ("" when they do not).
	FramesError string
	// Exception is the one the thread is raising or handling, nil for
	// none (or one that cannot be read).
	Exception *Exception
}

// Threads reads every thread state of every interpreter, in the
// interpreters' order (the newest thread first, as faulthandler lists
// them). A thread state that cannot be read ends its interpreter's list
// with a warning. When the layout came from the generated table and what
// it reads does not hold together, the module's DWARF, where it describes
// the interpreter, is read instead (a distribution's patched build).
func (r *Reader) Threads(mem Memory) (threads []Thread, warnings []string) {
	threads, warnings = r.threads(mem)
	if holdsTogether(threads) || r.layout.Source != pylayout.FromHeaders {
		return threads, warnings
	}
	l, ok := dwarfLayout(&r.b, r.layout.Version, r.layout.Build)
	if !ok {
		return threads, warnings
	}
	table := r.layout
	r.layout = &l
	if t, w := r.threads(mem); holdsTogether(t) {
		return t, w
	}
	r.layout = table
	return threads, warnings
}

// holdsTogether says whether threads read with a layout look right:
// Python frames in some thread (a process that crashed running no
// Python code at all is rare), every frame chain and code object read
// whole.
func holdsTogether(threads []Thread) bool {
	frames := 0
	for _, th := range threads {
		frames += len(th.Frames)
		if th.FramesError != "" {
			return false
		}
		for _, f := range th.Frames {
			if f.Error != "" {
				return false
			}
		}
	}
	return frames > 0
}

func (r *Reader) threads(mem Memory) (threads []Thread, warnings []string) {
	l := r.layout
	warn := func(format string, args ...any) {
		if len(warnings) < maxWarnings {
			warnings = append(warnings, "python: "+fmt.Sprintf(format, args...))
		}
	}
	runtime := r.b.Symbols[SymRuntime] + r.b.Bias
	interp, err := r.field(mem, runtime, l.Runtime.InterpretersHead)
	if err != nil {
		warn("%s at %#x: %v", SymRuntime, runtime, err)
		return nil, warnings
	}
	cache := codeCache{}
	budget := MaxTotalFrames
	if r.maxTotalFrames > 0 {
		budget = r.maxTotalFrames
	}
	seen := map[uint64]bool{}
	for n := 0; interp != 0; n++ {
		if n >= MaxInterpreters || seen[interp] {
			warn("interpreter list at %#x: more than %d or a loop", interp, MaxInterpreters)
			break
		}
		seen[interp] = true
		holder := r.gilHolder(mem, runtime, interp)
		ts, err := r.field(mem, interp, l.Interp.ThreadsHead)
		if err != nil {
			warn("interpreter at %#x: %v", interp, err)
			break
		}
		for ts != 0 {
			if len(threads) >= MaxThreads || seen[ts] {
				warn("thread states at %#x: more than %d or a loop", ts, MaxThreads)
				break
			}
			seen[ts] = true
			th, next, err := r.thread(mem, cache, &budget, ts)
			if err != nil {
				warn("%v", err)
				break
			}
			th.HoldsGIL = ts == holder
			threads = append(threads, th)
			ts = next
		}
		if interp, err = r.field(mem, interp, l.Interp.Next); err != nil {
			warn("interpreter at %#x: %v", interp, err)
			break
		}
	}
	return threads, warnings
}

// thread reads the thread state at addr and the address of the next.
func (r *Reader) thread(mem Memory, cache codeCache, budget *int, addr uint64) (th Thread, next uint64, err error) {
	l := &r.layout.Thread
	th.Addr = addr
	for _, f := range []struct {
		off pylayout.Offset
		out *uint64
	}{{l.Next, &next}, {l.ThreadID, &th.ThreadID}, {l.NativeThreadID, &th.NativeID}} {
		if *f.out, err = r.field(mem, addr, f.off); err != nil {
			return th, 0, fmt.Errorf("thread state at %#x: %w", addr, err)
		}
	}
	frame, err := r.currentFrame(mem, addr)
	if err != nil {
		th.FramesError = err.Error()
	} else if th.Frames, err = r.frames(mem, cache, budget, frame); err != nil {
		th.FramesError = err.Error()
	}
	th.Exception = r.exception(mem, addr)
	return th, next, nil
}

// currentFrame is the address of the thread's innermost frame, 0 for
// none: tstate->frame (<= 3.10), tstate->cframe->current_frame (3.11,
// 3.12) or tstate->current_frame (3.13+).
func (r *Reader) currentFrame(mem Memory, tstate uint64) (uint64, error) {
	l := r.layout
	switch {
	case l.Thread.CurrentFrame.Present():
		return r.field(mem, tstate, l.Thread.CurrentFrame)
	case l.Thread.CFrame.Present():
		cframe, err := r.field(mem, tstate, l.Thread.CFrame)
		if err != nil || cframe == 0 {
			return 0, err
		}
		return r.field(mem, cframe, l.CFrame.CurrentFrame)
	}
	return r.field(mem, tstate, l.Thread.Frame)
}

// gilHolder is the thread state holding the GIL interp runs under, 0
// when it is free or unknown: the runtime's GIL up to 3.11, the one the
// interpreter points to from 3.12.
func (r *Reader) gilHolder(mem Memory, runtime, interp uint64) uint64 {
	l := r.layout
	var gil uint64
	switch {
	case l.Runtime.GIL.Present():
		gil = runtime + uint64(l.Runtime.GIL)
	case l.Interp.GIL.Present():
		var err error
		if gil, err = r.field(mem, interp, l.Interp.GIL); err != nil || gil == 0 {
			return 0
		}
	default:
		return 0
	}
	if !l.GIL.Locked.Present() {
		return 0
	}
	locked, err := r.int32At(mem, gil+uint64(l.GIL.Locked))
	if err != nil || locked == 0 {
		return 0
	}
	holder, _ := r.field(mem, gil, l.GIL.LastHolder)
	return holder
}

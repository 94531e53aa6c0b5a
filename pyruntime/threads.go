package pyruntime

import (
	"fmt"
)

// Thread is one Python thread state.
type Thread struct {
	// Addr is the thread state's address.
	Addr uint64
	// NativeID is the kernel's id of the thread (native_thread_id): the
	// core's thread. ThreadID is its pthread_t, as faulthandler prints
	// it ("Thread 0x00007f...").
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
// with a warning.
func (r *Reader) Threads(mem Memory) (threads []Thread, warnings []string) {
	l := r.layout
	warn := func(format string, args ...any) {
		if len(warnings) < maxWarnings {
			warnings = append(warnings, "python: "+fmt.Sprintf(format, args...))
		}
	}
	runtime := r.b.Symbols[SymRuntime] + r.b.Bias
	interp, err := r.field(mem, runtime, l.RuntimeInterpretersHead)
	if err != nil {
		warn("%s at %#x: %v", SymRuntime, runtime, err)
		return nil, warnings
	}
	holder := r.gilHolder(mem, runtime)
	cache := codeCache{}
	seen := map[uint64]bool{}
	for n := 0; interp != 0; n++ {
		if n >= MaxInterpreters || seen[interp] {
			warn("interpreter list at %#x: more than %d or a loop", interp, MaxInterpreters)
			break
		}
		seen[interp] = true
		ts, err := r.field(mem, interp, l.InterpThreadsHead)
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
			th, next, err := r.thread(mem, cache, ts)
			if err != nil {
				warn("%v", err)
				break
			}
			th.HoldsGIL = ts == holder
			threads = append(threads, th)
			ts = next
		}
		if interp, err = r.field(mem, interp, l.InterpNext); err != nil {
			warn("interpreter at %#x: %v", interp, err)
			break
		}
	}
	return threads, warnings
}

// thread reads the thread state at addr and the address of the next.
func (r *Reader) thread(mem Memory, cache codeCache, addr uint64) (th Thread, next uint64, err error) {
	l := r.layout
	th.Addr = addr
	for _, f := range []struct {
		off int64
		out *uint64
	}{{l.TstateNext, &next}, {l.TstateThreadID, &th.ThreadID}, {l.TstateNativeID, &th.NativeID}} {
		if *f.out, err = r.field(mem, addr, f.off); err != nil {
			return th, 0, fmt.Errorf("thread state at %#x: %w", addr, err)
		}
	}
	frame, err := r.currentFrame(mem, addr)
	if err != nil {
		th.FramesError = err.Error()
	} else if th.Frames, err = r.frames(mem, cache, frame); err != nil {
		th.FramesError = err.Error()
	}
	th.Exception = r.exception(mem, addr)
	return th, next, nil
}

// currentFrame is the address of the thread's innermost interpreter
// frame, 0 for none.
func (r *Reader) currentFrame(mem Memory, tstate uint64) (uint64, error) {
	l := r.layout
	if l.TstateCurrentFrame >= 0 {
		return r.field(mem, tstate, l.TstateCurrentFrame)
	}
	cframe, err := r.field(mem, tstate, l.TstateCFrame)
	if err != nil || cframe == 0 {
		return 0, err
	}
	return r.field(mem, cframe, l.CFrameCurrentFrame)
}

// gilHolder is the thread state holding the GIL, 0 when it is free or
// unknown.
func (r *Reader) gilHolder(mem Memory, runtime uint64) uint64 {
	l := r.layout
	if l.RuntimeGILLocked < 0 {
		return 0
	}
	locked, err := r.int32At(mem, runtime+uint64(l.RuntimeGILLocked))
	if err != nil || locked == 0 {
		return 0
	}
	holder, _ := r.field(mem, runtime, l.RuntimeGILLastHolder)
	return holder
}

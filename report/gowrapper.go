package report

// The Go runtime leaves wrapper functions (Frame.GoWrapper) out of
// goroutines' tracebacks and of the stacks runtime/pprof records, unless
// the wrapper called a panic function rather than what it wraps
// (runtime.showfuncinfo, elideWrapperCalling, tracebackPCs).

// elidedWrapper says whether frames[i] is a wrapper the runtime leaves
// out: frames[i-1], the frame it called, is no panic function.
func elidedWrapper(frames []Frame, i int) bool {
	if !frames[i].GoWrapper {
		return false
	}
	if i == 0 || frames[i-1].Function == nil {
		return true
	}
	switch *frames[i-1].Function {
	case "runtime.gopanic", "runtime.sigpanic", "runtime.panicwrap":
		return false
	}
	return true
}

// withoutWrappers is frames without the wrappers the runtime leaves out
// of a stack it records; a wrapper with inlined calls in it stays (they
// are one location). frames itself when there is none.
func withoutWrappers(frames []Frame) []Frame {
	var out []Frame
	for i := range frames {
		if elidedWrapper(frames, i) && (i == 0 || !frames[i-1].Inlined) {
			if out == nil {
				out = append(make([]Frame, 0, len(frames)), frames[:i]...)
			}
			continue
		}
		if out != nil {
			out = append(out, frames[i])
		}
	}
	if out == nil {
		return frames
	}
	return out
}

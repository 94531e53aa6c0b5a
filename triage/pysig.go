package triage

import (
	"path"

	"github.com/coreunwind/coreunwind/report"
)

// pythonFrames is the signature of a crash under a CPython interpreter
// (the crashed thread runs Python code): the crashed thread's first
// depth meaningful native frames that are not the interpreter's (a C
// extension's, a library's: where a native bug is), up to the first
// Python frame, then its first depth Python frames, named FILE:QUALNAME
// (app.py:Store.commit: the file's base name, no line, which edits above
// move). The interpreter's own frames (the evaluator, calls, os.abort's
// C code, faulthandler) say how the Python code reached the crash, which
// the Python frames say better. nil when the crashed thread has no
// Python frame: the native frames decide then.
func (s *Signer) pythonFrames(r *report.Report, depth int) ([]string, bool) {
	th := crashedThread(r)
	if r.Python == nil || th == nil {
		return nil, false
	}
	first := -1
	for i := range th.Frames {
		if th.Frames[i].Language == report.LanguagePython {
			first = i
			break
		}
	}
	if first < 0 {
		return nil, false
	}
	interpreter := func(f *report.Frame) bool {
		return f.Module != nil && *f.Module == r.Python.Module
	}
	// The native frames the signature may name: not the interpreter's,
	// nor skipped (raise, abort: without a stand-in for them when every
	// one is, as topFrames would put).
	var native []report.Frame
	for _, f := range th.Frames[:first] {
		if !interpreter(&f) && !s.frame(&f).skip {
			native = append(native, f)
		}
	}
	names, exact := s.topFrames(native, depth, nil)
	if len(native) > 0 && !exact {
		// The native frames did not reach the depth: the Python frames
		// follow them only if every frame up to them was found without
		// heuristics.
		exact = true
		for _, f := range th.Frames[:first] {
			exact = exact && exactTrust[f.Trust]
		}
	}
	if len(native) == 0 {
		exact = true
	}
	counted := 0
	for _, f := range th.Frames[first:] {
		if f.Language != report.LanguagePython {
			continue
		}
		names = append(names, pythonFrameName(&f))
		exact = exact && exactTrust[f.Trust]
		if counted++; counted == depth {
			return names, exact
		}
	}
	return names, false
}

// pythonFrameName is a Python frame in a signature: FILE:QUALNAME.
func pythonFrameName(f *report.Frame) string {
	file, fn := "?", "?"
	if f.File != nil {
		file = path.Base(*f.File)
	}
	if f.Function != nil {
		fn = *f.Function
	}
	if len(fn) > maxNameLen {
		fn = fn[:maxNameLen]
	}
	return file + ":" + fn
}

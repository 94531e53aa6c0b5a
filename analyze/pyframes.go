package analyze

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/pyruntime"
	"github.com/coreunwind/coreunwind/pyruntime/pylayout"
	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/unwind"
)

// pyProgram is what a CPython process's interpreter says: its version
// and its thread states by the kernel's thread id.
type pyProgram struct {
	version string
	layout  string // where the layout came from
	module  string // the interpreter's module
	threads map[int]*pyruntime.Thread
}

// pythonProgram reads the interpreter of a CPython process and matches
// its thread states to the core's threads: nil when no module holds an
// interpreter; warnings say what could not be read or matched.
func pythonProgram(t *target, arch unwind.Arch, threads []*corefile.Thread) (*pyProgram, []string) {
	m, syms := t.pythonModule()
	if m == nil {
		return nil, nil
	}
	obj := m.obj()
	dw := func() *dwarf.Data {
		d, _ := obj.DWARF()
		return d
	}
	r, err := pyruntime.NewReader(pyruntime.Binary{Name: m.core.Path, Symbols: syms, DWARF: dw, Bias: m.bias, PtrSize: t.PtrSize(), Order: t.ByteOrder()}, t)
	if err != nil {
		return nil, []string{fmt.Sprintf("python: %s: %v", m.core.Path, err)}
	}
	states, warnings := r.Threads(t)
	p := &pyProgram{version: r.Version(), layout: r.Layout().Source.String(), module: m.core.Path, threads: map[int]*pyruntime.Thread{}}
	// Before 3.11 a thread state has no native id: its pthread_t is the
	// thread pointer where glibc keeps the TCB at it (x86-64, s390x:
	// the DTV pointer is the TCB's second word, above tp).
	byPthread := map[uint64]int{}
	if tpa, ok := arch.(unwind.ThreadPointerArch); ok && tpa.DTVAt() > 0 {
		for _, th := range threads {
			ts := &unwind.ThreadState{GRegs: th.GRegs, FPRegs: th.FPRegs, Notes: th.Notes, Order: t.ByteOrder(), Mem: t}
			if tp, ok := tpa.ThreadPointer(ts); ok {
				byPthread[tp] = th.TID
			}
		}
	}
	for i := range states {
		st := &states[i]
		tid, ok := int(st.NativeID), st.NativeID != 0
		if !ok {
			tid, ok = byPthread[st.ThreadID]
		}
		if !ok || p.threads[tid] != nil {
			warnings = append(warnings, fmt.Sprintf("python: the thread state at %#x (thread %#x) matches no thread of the core", st.Addr, st.ThreadID))
			continue
		}
		p.threads[tid] = st
	}
	return p, warnings
}

// pythonModule is the module holding the interpreter (_PyRuntime): the
// executable (python3.11 links libpython in) or a libpython library;
// nil for none. Other modules are not opened to find out, and a module
// is looked at by its dynamic symbol table's hash (every interpreter
// exports _PyRuntime to its extension modules) unless its name says it
// is a Python (python3.9, libpython3.9.so): a program that is not
// Python costs no pass over its full symbol table.
func (t *target) pythonModule() (*module, map[string]uint64) {
	for _, m := range t.modulesInLoadOrder() {
		_, _, named := pylayout.FromLibName(m.core.Path)
		if !m.core.Main && !named {
			continue
		}
		obj := m.obj()
		if obj == nil {
			continue
		}
		if _, ok := obj.DefinedSymbol(elf.SHT_DYNSYM, pyruntime.SymRuntime, elf.STT_OBJECT); !ok && !named {
			continue
		}
		if syms := obj.SymbolValues(pyruntime.SymbolNames...); pyruntime.IsPython(syms) {
			return m, syms
		}
	}
	return nil, nil
}

// splicePython puts each thread's Python frames into its native stack
// in place of the evaluator frames that run them and says, per thread,
// what its thread state holds. Frame indices move; the crash analysis's
// are moved with them.
func splicePython(r *report.Report, p *pyProgram) (warnings []string) {
	if p == nil {
		return nil
	}
	r.Python = &report.Python{Version: p.version, Layout: p.layout, Module: p.module}
	for i := range r.Threads {
		th := &r.Threads[i]
		py := p.threads[th.TID]
		if py == nil {
			continue
		}
		th.Python = pythonThread(py)
		if py.FramesError != "" {
			// A chain that does not hold together places nothing:
			// the native stack stays as it is.
			warnings = append(warnings, fmt.Sprintf("python: thread %d: its Python frames are left out: %s", th.TID, py.FramesError))
			continue
		}
		moved, unplaced := spliceThread(th, py.Frames)
		if unplaced > 0 {
			msg := fmt.Sprintf("%d of %d runs of Python frames have no %s frame in the native stack; they follow it", unplaced, len(pythonRuns(py.Frames)), pyruntime.EvalFunction)
			th.Python.Error = &msg
			warnings = append(warnings, fmt.Sprintf("python: thread %d: %s", th.TID, msg))
		}
		if th.Crashed && r.Crash != nil && r.Crash.Reraised != nil {
			rr := r.Crash.Reraised
			rr.SignalFrame, rr.FaultFrame = moved(rr.SignalFrame), moved(rr.FaultFrame)
		}
	}
	return warnings
}

// pythonThread is the report's view of a thread state.
func pythonThread(py *pyruntime.Thread) *report.PythonThread {
	out := &report.PythonThread{ThreadID: report.Hex(py.ThreadID), HoldsGIL: py.HoldsGIL}
	if py.FramesError != "" {
		out.Error = report.Ptr(py.FramesError)
	}
	if e := py.Exception; e != nil {
		out.Exception = &report.PythonException{Type: e.Type, Handled: e.Handled}
		if e.Message != "" {
			out.Exception.Message = report.Ptr(e.Message)
		}
	}
	return out
}

// pythonRuns splits a thread's Python frames (innermost first) into the
// runs one evaluator call each executes: a run ends with its entry
// frame.
func pythonRuns(frames []pyruntime.Frame) [][]pyruntime.Frame {
	var runs [][]pyruntime.Frame
	start := 0
	for i := range frames {
		if frames[i].Entry || i == len(frames)-1 {
			runs = append(runs, frames[start:i+1])
			start = i + 1
		}
	}
	return runs
}

// spliceThread replaces th's evaluator frames, innermost first, with the
// runs of Python frames they execute, one run each (an evaluator frame's
// inlined calls go with it). Runs left without an evaluator frame follow
// the native stack; unplaced counts them. moved maps an index of the old
// frames to the new.
func spliceThread(th *report.Thread, frames []pyruntime.Frame) (moved func(int) int, unplaced int) {
	runs := pythonRuns(frames)
	old := th.Frames
	newIndex := make([]int, len(old))
	out := make([]report.Frame, 0, len(old)+len(frames))
	run := 0
	physStart := 0 // where the current physical frame's inlined calls start
	for i := range old {
		f := &old[i]
		if i > 0 && !old[i-1].Inlined {
			physStart = i
		}
		if !f.Inlined && f.Language == "" && run < len(runs) && f.Function != nil && *f.Function == pyruntime.EvalFunction {
			// Drop the evaluator's inlined calls already written.
			out = out[:len(out)-(i-physStart)]
			for j := physStart; j <= i; j++ {
				newIndex[j] = len(out)
			}
			out = appendPython(out, f, runs[run])
			run++
			continue
		}
		newIndex[i] = len(out)
		out = append(out, *f)
		out[len(out)-1].Index = len(out) - 1
	}
	for _, r := range runs[run:] {
		var last report.Frame
		if len(old) > 0 {
			last = old[len(old)-1]
		}
		out = appendPython(out, &last, r)
	}
	th.Frames = out
	return func(i int) int {
		if i >= 0 && i < len(newIndex) {
			return newIndex[i]
		}
		return i
	}, len(runs) - run
}

// appendPython appends the Python frames run executes, with the place
// (pc, sp, cfa, module) of the native frame eval that runs them.
func appendPython(out []report.Frame, eval *report.Frame, run []pyruntime.Frame) []report.Frame {
	for i := range run {
		pf := &run[i]
		f := report.Frame{Index: len(out), PC: eval.PC, ExactPC: eval.ExactPC, SP: eval.SP, CFA: eval.CFA,
			Trust: eval.Trust, Module: eval.Module, Language: report.LanguagePython}
		if pf.Error == "" {
			f.Function, f.File = report.Ptr(pf.Qualname), report.Ptr(pf.File)
			if pf.Line >= 0 {
				f.Line = report.Ptr(pf.Line)
			}
		}
		out = append(out, f)
	}
	return out
}

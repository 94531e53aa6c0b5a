package triage

import (
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/report"
)

// pyReportOf is a CPython process's report whose crashed thread runs
// frames, innermost first: "py:FILE:QUALNAME" is a Python frame,
// "NAME@MODULE" a native frame of MODULE (the interpreter's when it is
// python3.11).
func pyReportOf(signal string, frames ...string) *report.Report {
	const exe = "/usr/bin/python3.11"
	th := report.Thread{TID: 1, Crashed: true}
	for i, f := range frames {
		fr := report.Frame{Index: i, Trust: "cfi"}
		if py, ok := strings.CutPrefix(f, "py:"); ok {
			file, fn, _ := strings.Cut(py, ":")
			fr.Language, fr.File, fr.Function, fr.Module = report.LanguagePython, report.Ptr("/srv/"+file), report.Ptr(fn), report.Ptr(exe)
		} else {
			name, mod, _ := strings.Cut(f, "@")
			if mod == "python3.11" {
				mod = exe
			}
			fr.Function, fr.Module = report.Ptr(name), report.Ptr(mod)
		}
		th.Frames = append(th.Frames, fr)
	}
	return &report.Report{
		Core:    report.Core{Signal: &report.Signal{Name: signal}},
		Threads: []report.Thread{th},
		Python:  &report.Python{Version: "3.11.2", Module: exe},
	}
}

func TestSignPython(t *testing.T) {
	skip, err := NewSkipList(DefaultPatterns())
	if err != nil {
		t.Fatal(err)
	}
	abort := []string{"__pthread_kill_implementation@libc.so.6", "raise@libc.so.6", "abort@libc.so.6", "os_abort@python3.11",
		"_PyObject_MakeTpCall@python3.11", "py:app.py:Store.commit", "py:app.py:main", "py:app.py:<module>", "PyEval_EvalCode@python3.11", "main@python3.11"}
	ext := []string{"faulthandler_fatal_error@python3.11", "crash_now@segv.so", "cfunction_vectorcall_NOARGS@python3.11",
		"py:app.py:inner", "call@segv.so", "py:app.py:via_c", "py:app.py:main"}
	for _, tc := range []struct {
		name  string
		depth int
		rep   *report.Report
		want  string
		exact bool
	}{
		{"os.abort: the Python frame, no interpreter or libc frame", 1, pyReportOf("SIGABRT", abort...), "app.py:Store.commit", true},
		{"os.abort, deeper", 2, pyReportOf("SIGABRT", abort...), "app.py:Store.commit | app.py:main", true},
		{"a C extension: its function, then the Python frame that called it", 1, pyReportOf("SIGSEGV", ext...), "crash_now | app.py:inner", true},
		{"deeper: the extension's frames stop at the first Python frame", 2, pyReportOf("SIGSEGV", ext...), "crash_now | app.py:inner | app.py:via_c", true},
		{"fewer Python frames than the depth", 4, pyReportOf("SIGSEGV", ext...), "crash_now | app.py:inner | app.py:via_c | app.py:main", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sig := (&Signer{Skip: skip, Depth: tc.depth}).Sign(tc.rep)
			if sig.Text != tc.want || sig.Exact != tc.exact {
				t.Errorf("signature %q (exact %v), want %q (exact %v)", sig.Text, sig.Exact, tc.want, tc.exact)
			}
		})
	}
	// Without the interpreter's report, the native frames decide.
	r := pyReportOf("SIGABRT", abort...)
	r.Python = nil
	for i := range r.Threads[0].Frames {
		r.Threads[0].Frames[i].Language = ""
	}
	if sig := (&Signer{Skip: skip}).Sign(r); sig.Text != "os_abort" {
		t.Errorf("native signature %q, want os_abort", sig.Text)
	}
}

package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/coreunwind/coreunwind/report"
)

// pythonReport is a CPython process's report: the crashed thread runs
// a C function called from two Python frames that one evaluator frame
// runs, handling a ValueError; the other thread holds the GIL.
func pythonReport() *report.Report {
	mod := "/usr/bin/python3.11"
	native := func(i int, pc uint64, fn string) report.Frame {
		return report.Frame{Index: i, PC: report.Hex(pc), Trust: "cfi", Module: report.Ptr(mod), ModuleOffset: report.Ptr(report.Hex(pc - 0x400000)), Function: report.Ptr(fn)}
	}
	py := func(i int, fn, file string, line int) report.Frame {
		return report.Frame{Index: i, PC: 0x4f9f1b, Trust: "cfi", Module: report.Ptr(mod), Function: report.Ptr(fn), File: report.Ptr(file), Line: report.Ptr(line), Language: report.LanguagePython}
	}
	return &report.Report{
		Core:    report.Core{Path: "core", Format: "elf-linux", Arch: "x86_64", ByteOrder: "little", PointerSize: 8},
		Modules: []report.Module{{Path: mod, Start: 0x400000, End: 0xb00000}},
		Python:  &report.Python{Version: "3.11.2", Layout: "headers", Module: mod},
		Threads: []report.Thread{{
			TID: 10, Crashed: true,
			Frames: []report.Frame{native(0, 0x4ee333, "crash_now"), py(1, "Store.commit", "/srv/app.py", 12), py(2, "<module>", "/srv/app.py", 20), native(3, 0x60a917, "main")},
			Python: &report.PythonThread{ThreadID: 0x7f00aa, Exception: &report.PythonException{Type: "ValueError", Message: report.Ptr("bad value"), Handled: true}},
		}, {
			TID: 11,
			// A Python frame whose line the table does not give.
			Frames: []report.Frame{py(0, "worker", "/srv/app.py", 0)},
			Python: &report.PythonThread{ThreadID: 0x7f00bb, HoldsGIL: true},
		}},
	}
}

func TestTextPythonFrames(t *testing.T) {
	r := pythonReport()
	r.Threads[1].Frames[0].Line = nil
	var buf bytes.Buffer
	if err := report.WriteText(&buf, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Thread 10 (crashed):\nPython: handling ValueError: bad value\n#0  0x00000000004ee333 in crash_now () from /usr/bin/python3.11\n",
		"#1  [python] File \"/srv/app.py\", line 12, in Store.commit\n#2  [python] File \"/srv/app.py\", line 20, in <module>\n#3  ",
		"Thread 11:\nPython: holds the GIL\n#0  [python] File \"/srv/app.py\", line ???, in worker\n",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}
	buf.Reset()
	if err := report.WritePythonText(&buf, r); err != nil {
		t.Fatal(err)
	}
	want := "python:      3.11.2 (layouts from headers)\n\n" +
		"Current thread 0x00000000007f00aa, tid 10 (most recent call first):\n" +
		"  File \"/srv/app.py\", line 12 in Store.commit\n" +
		"  File \"/srv/app.py\", line 20 in <module>\n" +
		"Python: handling ValueError: bad value\n\n" +
		"Thread 0x00000000007f00bb, tid 11 (most recent call first):\n" +
		"  File \"/srv/app.py\", line ??? in worker\n" +
		"Python: holds the GIL\n"
	if !strings.HasSuffix(buf.String(), want) {
		t.Errorf("python view:\n%s\nwant it to end with:\n%s", buf.String(), want)
	}
}

// TestPprofPythonFrames: each Python frame is a location of its own
// with no mapping and no address, named by its function and file.
func TestPprofPythonFrames(t *testing.T) {
	var buf bytes.Buffer
	if err := report.WritePprof(&buf, []*report.Report{pythonReport()}); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, loc := range p.Sample[0].Location {
		if len(loc.Line) != 1 {
			t.Fatalf("location %v has %d lines", loc, len(loc.Line))
		}
		l := loc.Line[0]
		kind := "native"
		if loc.Mapping == nil && loc.Address == 0 {
			kind = "python"
		}
		got = append(got, kind+" "+l.Function.Name+" "+l.Function.Filename)
	}
	want := "native crash_now |python Store.commit /srv/app.py|python <module> /srv/app.py|native main "
	if strings.Join(got, "|") != want {
		t.Errorf("locations %q\nwant %q", strings.Join(got, "|"), want)
	}
}

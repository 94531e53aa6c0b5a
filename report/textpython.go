package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// appendPythonFrame appends a Python frame as Python's tracebacks print
// it, File "app.py", line 12, in handler, with sep before the function:
// ", in " (traceback) or " in " (faulthandler). An unknown line is "???",
// as faulthandler prints it; a frame whose code was unreadable is "???"
// throughout.
func appendPythonFrame(b []byte, f *Frame, sep string) []byte {
	b = append(b, "File \""...)
	if f.File != nil {
		b = appendPrintable(b, *f.File)
	} else {
		b = append(b, "???"...)
	}
	b = append(b, "\", line "...)
	if f.Line != nil {
		b = strconv.AppendInt(b, int64(*f.Line), 10)
	} else {
		b = append(b, "???"...)
	}
	b = append(b, sep...)
	if f.Function != nil {
		b = appendPrintable(b, *f.Function)
	} else {
		b = append(b, "???"...)
	}
	return b
}

// writePythonThread writes the lines under a thread's header that say
// what its Python thread state holds: the GIL, the exception.
func writePythonThread(w *bufio.Writer, py *PythonThread) {
	if py == nil {
		return
	}
	if py.HoldsGIL {
		w.WriteString("Python: holds the GIL\n")
	}
	if e := py.Exception; e != nil {
		what := "raising"
		if e.Handled {
			what = "handling"
		}
		fmt.Fprintf(w, "Python: %s %s", what, Printable(e.Type))
		if e.Message != nil {
			fmt.Fprintf(w, ": %s", Printable(*e.Message))
		}
		w.WriteByte('\n')
	}
	if py.Error != nil {
		fmt.Fprintf(w, "Python frames: %s\n", Printable(*py.Error))
	}
}

// WritePythonText writes the Python stack of every thread that has one,
// as faulthandler prints them (python -X faulthandler) with the
// kernel's thread id added:
//
//	Current thread 0x00007f3a1c2b5740, tid 4242 (most recent call first):
//	  File "app.py", line 12 in handler
//
// The crashed thread is the "Current thread"; threads without a Python
// thread state are left out.
func WritePythonText(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	writeHeader(bw, r)
	if r.Python != nil {
		fmt.Fprintf(bw, "python:      %s (layouts from %s)\n", r.Python.Version, r.Python.Layout)
	} else {
		bw.WriteString("python:      none found (no CPython interpreter in the process, or it could not be read)\n")
	}
	for i := range r.Threads {
		t := &r.Threads[i]
		if t.Python == nil {
			continue
		}
		bw.WriteByte('\n')
		if t.Crashed {
			bw.WriteString("Current thread")
		} else {
			bw.WriteString("Thread")
		}
		fmt.Fprintf(bw, " 0x%016x, tid %d (most recent call first):\n", uint64(t.Python.ThreadID), t.TID)
		n := 0
		for j := range t.Frames {
			if t.Frames[j].Language != LanguagePython {
				continue
			}
			b := append(bw.AvailableBuffer(), "  "...)
			b = appendPythonFrame(b, &t.Frames[j], " in ")
			bw.Write(append(b, '\n'))
			n++
		}
		if n == 0 {
			bw.WriteString("  <no Python frame>\n")
		}
		writePythonThread(bw, t.Python)
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintf(bw, "\nwarnings:\n")
		for _, w := range r.Warnings {
			fmt.Fprintf(bw, "  %s\n", Printable(w))
		}
	}
	return bw.Flush()
}

package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteText writes r for people, in gdb's backtrace conventions:
//
//	#0  0x000055cfdd6fa15a in c () at /tmp/crash.c:3
//	#1  0x00007f1731629d90 in __libc_start_call_main () from /lib/x86_64-linux-gnu/libc.so.6
//	#2  <signal handler called>
//
// Frames found by weaker methods say so ("[frame pointer]", "[stack
// scan]"), the way minidump-stackwalk prints "Found by"; an early stop
// prints gdb's "Backtrace stopped: ...".
func WriteText(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	writeHeader(bw, r)
	for i := range r.Threads {
		writeThread(bw, &r.Threads[i], r.Core.PointerSize)
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintf(bw, "\nwarnings:\n")
		for _, w := range r.Warnings {
			fmt.Fprintf(bw, "  %s\n", w)
		}
	}
	return bw.Flush()
}

func writeHeader(w *bufio.Writer, r *Report) {
	c := &r.Core
	fmt.Fprintf(w, "core:        %s (%s, %s, %s-endian)\n", c.Path, c.Format, c.Arch, c.ByteOrder)
	if c.Executable != nil {
		fmt.Fprintf(w, "executable:  %s\n", *c.Executable)
	}
	if c.CommandLine != nil {
		fmt.Fprintf(w, "command:     %s\n", *c.CommandLine)
	}
	if c.PID != nil {
		fmt.Fprintf(w, "pid:         %d\n", *c.PID)
	}
	if s := c.Signal; s != nil {
		fmt.Fprintf(w, "signal:      %s (%d)", s.Name, s.Number)
		if d := SignalDescription(s.Number); d != "" {
			fmt.Fprintf(w, ", %s", d)
		}
		if s.CodeName != nil {
			fmt.Fprintf(w, ", code %s (%d)", *s.CodeName, s.Code)
		} else {
			fmt.Fprintf(w, ", code %d", s.Code)
		}
		if s.Address != nil {
			fmt.Fprintf(w, ", fault address %#x", uint64(*s.Address))
		}
		if s.SenderPID != nil && s.SenderUID != nil {
			fmt.Fprintf(w, ", sent by pid %d (uid %d)", *s.SenderPID, *s.SenderUID)
		}
		w.WriteByte('\n')
	}
	if c.CrashedTID != nil {
		fmt.Fprintf(w, "crashed:     thread %d\n", *c.CrashedTID)
	}
}

func writeThread(w *bufio.Writer, t *Thread, ptrSize int) {
	fmt.Fprintf(w, "\nThread %d", t.TID)
	if t.Name != nil {
		fmt.Fprintf(w, " %q", *t.Name)
	}
	if t.Crashed {
		w.WriteString(" (crashed)")
	}
	w.WriteString(":\n")
	width := 16
	if ptrSize == 4 {
		width = 8
	}
	for i := range t.Frames {
		writeFrame(w, &t.Frames[i], width)
	}
	if t.Truncated {
		w.WriteString("(More stack frames follow...)\n")
	}
	if t.Error != nil {
		fmt.Fprintf(w, "Backtrace stopped: %s\n", *t.Error)
	}
}

func writeFrame(w *bufio.Writer, f *Frame, width int) {
	if f.Signal {
		fmt.Fprintf(w, "#%-2d <signal handler called>\n", f.Index)
		return
	}
	fmt.Fprintf(w, "#%-2d 0x%0*x in ", f.Index, width, uint64(f.PC))
	if f.Function != nil {
		w.WriteString(*f.Function)
	} else {
		w.WriteString("??")
	}
	w.WriteString(" ()")
	switch {
	case f.File != nil && f.Line != nil:
		fmt.Fprintf(w, " at %s:%d", *f.File, *f.Line)
	case f.Module != nil:
		fmt.Fprintf(w, " from %s", *f.Module)
	}
	if f.Inlined {
		w.WriteString(" [inlined]")
	}
	switch f.Trust {
	case "frame_pointer":
		w.WriteString(" [frame pointer]")
	case "scan":
		w.WriteString(" [stack scan]")
	}
	w.WriteByte('\n')
}

// SignalDescription is the strsignal(3) text of a Linux signal, as gdb
// prints it after "Program terminated with signal".
func SignalDescription(n int) string {
	if n > 0 && n < len(signalDescriptions) {
		return signalDescriptions[n]
	}
	if n >= 34 && n <= 64 {
		return "Real-time signal " + strings.TrimSpace(fmt.Sprint(n-34))
	}
	return ""
}

var signalDescriptions = [...]string{"",
	"Hangup", "Interrupt", "Quit", "Illegal instruction", "Trace/breakpoint trap",
	"Aborted", "Bus error", "Floating point exception", "Killed", "User defined signal 1",
	"Segmentation fault", "User defined signal 2", "Broken pipe", "Alarm clock", "Terminated",
	"Stack fault", "Child exited", "Continued", "Stopped (signal)", "Stopped",
	"Stopped (tty input)", "Stopped (tty output)", "Urgent I/O condition", "CPU time limit exceeded",
	"File size limit exceeded", "Virtual timer expired", "Profiling timer expired",
	"Window changed", "I/O possible", "Power failure", "Bad system call",
}

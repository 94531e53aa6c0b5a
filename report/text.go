package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
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
// prints gdb's "Backtrace stopped: ...". A cycle of frames repeated three
// or more times in a row (deep recursion) prints once, followed by
// "[previous N frames repeated M more times]" (see fold.go). Threads
// with the same stack print once, under "N threads (ids) with this
// stack:" (see group.go).
func WriteText(w io.Writer, r *Report) error {
	return WriteTextOptions(w, r, TextOptions{})
}

// TextOptions change what the text writers print.
type TextOptions struct {
	// NoFold prints every frame, repeated cycles included.
	NoFold bool
	// Maps adds the memory map after the header, as gdb's info proc
	// mappings prints it.
	Maps bool
	// NoGroup prints every thread and goroutine, instead of those with
	// the same stack once under one header (see group.go).
	NoGroup bool
	// GoWrappers prints goroutines' wrapper frames (Frame.GoWrapper),
	// as GOTRACEBACK=system does; by default they are left out as the
	// runtime's default traceback leaves them (showWrapper).
	GoWrappers bool
}

// spans is how the writers split a thread's frames into lines.
func (o TextOptions) spans(frames []Frame) []span {
	if o.NoFold {
		return unfolded(frames)
	}
	return fold(frames)
}

// WriteTextOptions is WriteText with options.
func WriteTextOptions(w io.Writer, r *Report, o TextOptions) error {
	bw := bufio.NewWriter(w)
	writeHeader(bw, r)
	writeCrash(bw, r)
	if o.Maps {
		writeMaps(bw, r.Mappings, r.Core.PointerSize)
	}
	for _, g := range groupThreads(r.Threads, o.NoGroup) {
		writeThread(bw, r.Threads, g, r.Core.PointerSize, o)
	}
	writeGoroutines(bw, r.Goroutines, o)
	if len(r.Warnings) > 0 {
		fmt.Fprintf(bw, "\nwarnings:\n")
		for _, w := range r.Warnings {
			fmt.Fprintf(bw, "  %s\n", Printable(w))
		}
	}
	return bw.Flush()
}

func writeHeader(w *bufio.Writer, r *Report) {
	c := &r.Core
	fmt.Fprintf(w, "core:        %s (%s, %s, %s-endian)\n", Printable(c.Path), c.Format, c.Arch, c.ByteOrder)
	if c.Executable != nil {
		fmt.Fprintf(w, "executable:  %s\n", Printable(*c.Executable))
	}
	if c.CommandLine != nil {
		fmt.Fprintf(w, "command:     %s\n", Printable(*c.CommandLine))
	}
	if c.PID != nil {
		fmt.Fprintf(w, "pid:         %d\n", *c.PID)
	}
	if s := c.Signal; s != nil {
		fmt.Fprintf(w, "signal:      %s (%d)", s.Name, s.Number)
		if d := SignalDescription(s.Name); d != "" {
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
	writeOrigin(w, c.Origin)
	writeAnnotations(w, c.Annotations)
}

// writeThread writes the threads of one group (groupThreads): a thread
// under its own header, or two or more with the same stack under one.
func writeThread(w *bufio.Writer, threads []Thread, group []int, ptrSize int, o TextOptions) {
	t := &threads[group[0]]
	w.WriteByte('\n')
	if len(group) > 1 {
		w.WriteString(groupHeader(threads, group))
	} else {
		fmt.Fprintf(w, "Thread %d", t.TID)
		if t.Name != nil {
			fmt.Fprintf(w, " %q", *t.Name) // escaped as Printable escapes
		}
		if t.Crashed {
			w.WriteString(" (crashed)")
		}
		w.WriteString(":\n")
	}
	writePythonThread(w, t.Python)
	width := 16
	if ptrSize == 4 {
		width = 8
	}
	for _, s := range o.spans(t.Frames) {
		for i := s.start; i < s.start+s.n; i++ {
			writeFrame(w, &t.Frames[i], width)
		}
		if s.more > 0 {
			w.WriteString(foldLine(s))
		}
	}
	if t.Truncated {
		w.WriteString("(More stack frames follow...)\n")
	}
	if t.Error != nil {
		fmt.Fprintf(w, "Backtrace stopped: %s\n", Printable(*t.Error))
	}
}

// writeFrame writes one frame line as fmt's "#%-2d 0x%0*x in %s () ..."
// would, appended into the writer's free buffer: a deep stack is
// thousands of lines, and fmt costs an allocation and its verb parsing
// on each.
func writeFrame(w *bufio.Writer, f *Frame, width int) {
	if w.Available() < frameLineRoom && w.Size() > frameLineRoom {
		w.Flush() // room for the line without growing a new slice
	}
	b := w.AvailableBuffer()
	b = append(b, '#')
	b = appendIntLeft(b, f.Index, 2)
	b = append(b, ' ')
	if f.Signal {
		b = append(b, "<signal handler called>\n"...)
		w.Write(b)
		return
	}
	if f.Language == LanguagePython {
		b = append(b, "[python] "...)
		b = appendPythonFrame(b, f, ", in ")
		w.Write(append(b, '\n'))
		return
	}
	b = append(b, '0', 'x')
	b = appendHex(b, uint64(f.PC), width)
	b = append(b, " in "...)
	if f.Function != nil {
		b = appendPrintable(b, *f.Function)
	} else {
		b = append(b, "??"...)
	}
	b = append(b, " ()"...)
	switch {
	case f.File != nil && f.Line != nil:
		b = append(b, " at "...)
		b = appendPrintable(b, *f.File)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(*f.Line), 10)
	case f.Module != nil:
		b = append(b, " from "...)
		b = appendPrintable(b, *f.Module)
		if f.Function == nil && f.ModuleOffset != nil {
			// No name (--unwind-only, a stripped module): the offset
			// is what finds the code later (eu-addr2line -e MODULE).
			b = append(b, "+0x"...)
			b = strconv.AppendUint(b, uint64(*f.ModuleOffset), 16)
		}
	}
	if f.Inlined {
		b = append(b, " [inlined]"...)
	}
	switch f.Trust {
	case "frame_pointer":
		b = append(b, " [frame pointer]"...)
	case "scan":
		b = append(b, " [stack scan]"...)
	case TrustTailCall:
		b = append(b, " [tail call]"...)
	}
	b = append(b, '\n')
	w.Write(b)
}

// frameLineRoom is the free buffer writeFrame asks for: most lines fit
// (longer ones are written all the same, from a grown slice).
const frameLineRoom = 512

// appendIntLeft appends v as fmt's %-<width>d does: padded with spaces
// on the right to width.
func appendIntLeft(b []byte, v, width int) []byte {
	n := len(b)
	b = strconv.AppendInt(b, int64(v), 10)
	for len(b)-n < width {
		b = append(b, ' ')
	}
	return b
}

// SignalDescription is the strsignal(3) text for a signal name, as gdb
// prints it after "Program terminated with signal". By name, not number:
// HP-UX and Linux on PA-RISC number signals differently from x86.
func SignalDescription(name string) string {
	if d, ok := signalDescriptions[name]; ok {
		return d
	}
	// Unnamed Linux signals (corefile prints them "SIG37") are glibc's
	// real-time signals, numbered from SIGRTMIN = 34 as strsignal does.
	if n, err := strconv.Atoi(strings.TrimPrefix(name, "SIG")); err == nil && n >= 34 && n <= 64 {
		return "Real-time signal " + strconv.Itoa(n-34)
	}
	return ""
}

var signalDescriptions = map[string]string{
	"SIGHUP": "Hangup", "SIGINT": "Interrupt", "SIGQUIT": "Quit", "SIGILL": "Illegal instruction",
	"SIGTRAP": "Trace/breakpoint trap", "SIGABRT": "Aborted", "SIGIOT": "Aborted", "SIGBUS": "Bus error",
	"SIGFPE": "Floating point exception", "SIGKILL": "Killed", "SIGUSR1": "User defined signal 1",
	"SIGSEGV": "Segmentation fault", "SIGUSR2": "User defined signal 2", "SIGPIPE": "Broken pipe",
	"SIGALRM": "Alarm clock", "SIGTERM": "Terminated", "SIGSTKFLT": "Stack fault",
	"SIGCHLD": "Child exited", "SIGCONT": "Continued", "SIGSTOP": "Stopped (signal)",
	"SIGTSTP": "Stopped", "SIGTTIN": "Stopped (tty input)", "SIGTTOU": "Stopped (tty output)",
	"SIGURG": "Urgent I/O condition", "SIGXCPU": "CPU time limit exceeded",
	"SIGXFSZ": "File size limit exceeded", "SIGVTALRM": "Virtual timer expired",
	"SIGPROF": "Profiling timer expired", "SIGWINCH": "Window changed", "SIGIO": "I/O possible",
	"SIGPOLL": "I/O possible", "SIGPWR": "Power failure", "SIGSYS": "Bad system call",
	"SIGEMT": "Emulator trap", "SIGLOST": "Resource lost",
}

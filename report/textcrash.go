package report

import (
	"bufio"
	"fmt"
	"strings"
)

// writeCrash writes the crash analysis under the header: what happened,
// the instruction, the abort message, the crashing frame's registers.
func writeCrash(w *bufio.Writer, r *Report) {
	c := r.Crash
	if c == nil {
		return
	}
	const indent = "             "
	writeSummary(w, c, indent)
	for _, d := range c.Details {
		fmt.Fprintf(w, "%s%s\n", indent, Printable(d))
	}
	if in := c.Instruction; in != nil {
		fmt.Fprintf(w, "instruction: %#x", uint64(in.Address))
		if f := crashFrame(r); f != nil && f.Function != nil && f.FunctionOffset != nil {
			if *f.FunctionOffset == 0 {
				fmt.Fprintf(w, " <%s>", Printable(*f.Function))
			} else {
				fmt.Fprintf(w, " <%s+%d>", Printable(*f.Function), uint64(*f.FunctionOffset))
			}
		}
		fmt.Fprintf(w, ": %s", in.Text)
		var uses []string
		if in.MemoryAddress != nil {
			uses = append(uses, fmt.Sprintf("address %#x", uint64(*in.MemoryAddress)))
		}
		for _, reg := range in.Registers {
			uses = append(uses, fmt.Sprintf("%s = %#x", reg.Name, uint64(reg.Value)))
		}
		if len(uses) > 0 {
			fmt.Fprintf(w, "   (%s)", strings.Join(uses, ", "))
		}
		w.WriteByte('\n')
	}
	if c.AbortMessage != nil && !strings.Contains(c.Summary, *c.AbortMessage) {
		fmt.Fprintf(w, "abort:       %s\n", Printable(*c.AbortMessage))
	}
	if c.TerminateMessage != nil {
		// The terminate handler's words, its lines as one.
		fmt.Fprintf(w, "exception:   %s\n", Printable(strings.ReplaceAll(*c.TerminateMessage, "\n", "")))
	}
	if len(c.Recursion) > 0 {
		fmt.Fprintf(w, "recursion:   %s\n", Printable(strings.Join(c.Recursion, " -> ")))
	}
	writeRegisters(w, c.Registers, r.Core.PointerSize)
}

// writeSummary writes the crash's summary line. A Go program's panic
// chain or fatal error is the runtime's own text, whose lines after the
// first it starts with a tab (a chained panic, a message of several
// lines): each prints on its own line, aligned under the first. Any
// other summary is one line.
func writeSummary(w *bufio.Writer, c *Crash, indent string) {
	if c.Kind != KindGoPanic && c.Kind != KindGoFatalError {
		fmt.Fprintf(w, "crash:       %s\n", Printable(c.Summary))
		return
	}
	for i, line := range strings.Split(c.Summary, "\n") {
		if i == 0 {
			fmt.Fprintf(w, "crash:       %s\n", Printable(line))
			continue
		}
		fmt.Fprintf(w, "%s%s\n", indent, Printable(strings.TrimPrefix(line, "\t")))
	}
}

// crashFrame is the crashed thread's first frame that is not an inlined
// call: the one whose function the pc's offset is from.
func crashFrame(r *Report) *Frame {
	for i := range r.Threads {
		t := &r.Threads[i]
		if !t.Crashed {
			continue
		}
		first := 0
		if r.Crash != nil && r.Crash.Reraised != nil {
			first = r.Crash.Reraised.FaultFrame
		}
		for j := first; j < len(t.Frames); j++ {
			if !t.Frames[j].Inlined {
				return &t.Frames[j]
			}
		}
	}
	return nil
}

// writeRegisters prints registers four to a line, each zero-padded to the
// pointer width.
func writeRegisters(w *bufio.Writer, regs []Register, ptrSize int) {
	if len(regs) == 0 {
		return
	}
	width := 16
	if ptrSize == 4 {
		width = 8
	}
	for i, reg := range regs {
		switch {
		case i == 0:
			w.WriteString("registers:   ")
		case i%4 == 0:
			w.WriteString("\n             ")
		default:
			w.WriteString("  ")
		}
		fmt.Fprintf(w, "%-3s 0x%0*x", reg.Name, width, uint64(reg.Value))
	}
	w.WriteByte('\n')
}

// writeMaps prints the memory map in the columns of gdb's info proc
// mappings, with the permissions and how many bytes the core holds.
func writeMaps(w *bufio.Writer, maps []Mapping, ptrSize int) {
	width := 18
	if ptrSize == 4 {
		width = 10
	}
	w.WriteString("\nMapped address spaces:\n\n")
	fmt.Fprintf(w, "%*s %*s %12s %12s %5s %12s  %s\n", width, "Start Addr", width, "End Addr", "Size", "Offset", "Perms", "Dumped", "objfile")
	for _, m := range maps {
		perms := m.Perms
		if perms == "" {
			perms = "?"
		}
		line := fmt.Sprintf("%*s %*s %12s %12s %5s %12s", width, hexStr(uint64(m.Start)), width, hexStr(uint64(m.End)),
			hexStr(uint64(m.End-m.Start)), hexStr(uint64(m.Offset)), perms, hexStr(uint64(m.DumpedSize)))
		if m.Path != nil {
			line += "  " + Printable(*m.Path)
		}
		w.WriteString(line + "\n")
	}
}

func hexStr(v uint64) string { return fmt.Sprintf("%#x", v) }

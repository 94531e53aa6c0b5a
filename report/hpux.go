package report

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
)

// WriteHPUX writes r in the format of the HP unwind library's
// U_STACK_TRACE (PA64 runtime architecture, unwind library): per thread,
// one line per frame,
//
//	( 0) 0x000031f4 foo + 0x14 [./a.out]
//
// the index in parentheses padded to two places, the pc as 8 hex digits
// for 32-bit processes (16 for 64-bit ones), the function and offset, and
// the load module in brackets. A frame without a name prints the pc only;
// a signal frame prints HP's "<signal handler>" marker line. Repeated
// cycles fold as in WriteText (U_STACK_TRACE itself has no such line).
func WriteHPUX(w io.Writer, r *Report) error {
	return WriteHPUXOptions(w, r, TextOptions{})
}

// WriteHPUXOptions is WriteHPUX with options.
func WriteHPUXOptions(w io.Writer, r *Report, o TextOptions) error {
	bw := bufio.NewWriter(w)
	digits := 8
	switch r.Core.Arch {
	case "hppa64", "ia64", "x86_64", "aarch64", "ppc64", "ppc64le", "s390x", "riscv64", "mips64", "mips64el", "sparc64", "loongarch64":
		digits = 16
	}
	for gi, g := range groupThreads(r.Threads, o.NoGroup) {
		th := &r.Threads[g[0]]
		if gi > 0 {
			bw.WriteByte('\n')
		}
		if len(g) > 1 {
			bw.WriteString(groupHeader(r.Threads, g))
		} else {
			fmt.Fprintf(bw, "Thread %d", th.TID)
			if th.Crashed {
				bw.WriteString(" (crashed)")
			}
			bw.WriteString(":\n")
		}
		for _, s := range o.spans(th.Frames) {
			for i := s.start; i < s.start+s.n; i++ {
				writeHPUXFrame(bw, i, &th.Frames[i], digits)
			}
			if s.more > 0 {
				bw.WriteString(foldLine(s))
			}
		}
		if th.Truncated {
			bw.WriteString("   (more stack frames follow)\n")
		}
		if th.Error != nil {
			fmt.Fprintf(bw, "   (unwind stopped: %s)\n", Printable(*th.Error))
		}
	}
	return bw.Flush()
}

func writeHPUXFrame(bw *bufio.Writer, i int, f *Frame, digits int) {
	fmt.Fprintf(bw, "(%2d) 0x%0*x", i, digits, uint64(f.PC))
	if f.Function != nil {
		fmt.Fprintf(bw, " %s", Printable(*f.Function))
		if f.FunctionOffset != nil {
			fmt.Fprintf(bw, " + 0x%x", uint64(*f.FunctionOffset))
		}
	}
	if f.Module != nil {
		fmt.Fprintf(bw, " [%s]", Printable(hpuxModuleName(*f.Module)))
	}
	bw.WriteByte('\n')
	if f.Signal {
		bw.WriteString("   ---------------- Signal handler ----------------\n")
	}
}

// hpuxModuleName prints a module as HP's tools do: the path as loaded,
// relative paths kept ("./a.out"), absolute ones as they are.
func hpuxModuleName(p string) string {
	if filepath.IsAbs(p) || len(p) > 1 && p[0] == '.' {
		return p
	}
	return "./" + p
}

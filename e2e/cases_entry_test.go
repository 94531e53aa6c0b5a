package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/refbt"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// Faults on a function's first instruction. A caller frame's pc is a
// return address, looked up at pc-1 (the call); a frame interrupted by a
// signal was not calling, and its pc must be looked up as it is. At a
// function's first byte pc-1 belongs to the function before it, with
// another name and another CFI row: these cases fail if the exact-pc rule
// after a signal frame is lost (sigentry.c sets up the layout, and the
// tests ask gdb to confirm it).

// TestSignalAtFunctionEntry: entry_fault faults on its first instruction;
// the SIGSEGV handler calls handler_fault, which faults on its first
// instruction too. The frame after the signal frame is entry_fault at its
// first byte, preceded in the text by before_entry_fault. "handler" goes
// through glibc's __restore_rt, which has CFI ('S' augmentation);
// "restorer" through a trampoline of the program's own without CFI, which
// the unwinder must recognize by its code, after a one-byte function
// sigreturn_pad: the trampoline's own pc is its first byte too.
func TestSignalAtFunctionEntry(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"handler", "restorer"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			c := crashAndUnwind(t, "sigentry", nil, nil, mode)
			if mode == "restorer" {
				expectNoFDE(t, c.Exe, "__restore_rt", "sigreturn_pad")
			}
			compareWithReferences(t, c.GDB, c.EU, c.Report)
			c.expectSignal(t, 11, "SIGSEGV")
			th := c.crashed(t)
			expectFunctions(t, th, "handler_fault", "on_segv", "__restore_rt", "entry_fault", "run", "main")
			if len(th.Frames) > 0 && (th.Frames[0].Function != "handler_fault" || th.Frames[0].FunctionOffset != "0x0") {
				t.Errorf("frame 0 is not handler_fault+0x0:\n%s", formatFrames(th, 8))
			}
			// gdb's frame after "<signal handler called>" is the reference:
			// it looks frames after a signal trampoline up at their pc.
			g := gdbAfterSignal(t, c.GDB[th.TID])
			sig := -1
			for i := 1; i < len(th.Frames); i++ {
				if pc, _ := th.Frames[i].pc(); pc == g.PC {
					sig = i - 1
					break
				}
			}
			if sig < 0 {
				t.Fatalf("coreunwind has no frame at gdb's pc after the signal frame (%s):\n%s", g.Raw, formatFrames(th, 10))
			}
			tramp, after := th.Frames[sig], th.Frames[sig+1]
			if (mode == "restorer") != (tramp.Module == c.Exe) {
				t.Errorf("trampoline in %s; mode %s wants the program's own only with \"restorer\"", tramp.Module, mode)
			}
			trampPC, _ := tramp.pc()
			syms := gdbInfoSymbol(t, c.Exe, c.Core, trampPC, g.PC, g.PC-1)
			// The premise: the interrupted pc is entry_fault's first byte,
			// and pc-1 belongs to another function.
			if syms[1] != (symbolAt{"entry_fault", 0}) || syms[2].Name == "entry_fault" || syms[2].Name == "" {
				t.Fatalf("layout changed: gdb says pc %#x is %v and pc-1 is %v; want entry_fault+0 and another function", g.PC, syms[1], syms[2])
			}
			// The trampoline's pc is where the handler returns to, its
			// first byte: named at that pc, as gdb's info symbol does.
			if tramp.Function != syms[0].Name || syms[0].Offset != 0 || tramp.FunctionOffset != "0x0" {
				t.Errorf("signal trampoline: coreunwind %s+%s, gdb %v", tramp.Function, tramp.FunctionOffset, syms[0])
			}
			if normalizeFunc(after.Function) != normalizeFunc(g.Func) || after.FunctionOffset != "0x0" {
				t.Errorf("frame after the signal frame:\n  gdb:        %s (%v)\n  coreunwind: %s+%s", g.Raw, syms[1], after, after.FunctionOffset)
			}
			if after.Trust != "context" {
				t.Errorf("frame after the signal frame has trust %q, want context", after.Trust)
			}
		})
	}
}

// TestStackOverflowAtEntry: a thread with a 32 KiB stack recurses until
// the push of %rbp, overflow_entry's first instruction, faults on the
// guard page; overflow_missed, before it in the text, ends with %rbp
// pushed. The whole stack (under 4096 frames) is compared with gdb's and
// eu-stack's, and frame 0 must be overflow_entry+0 at that push.
func TestStackOverflowAtEntry(t *testing.T) {
	t.Parallel()
	exe := buildProgram(t, "sigentry")
	c := &crashCase{crash: crashProgram(t, exe, nil, "overflow")}
	c.references(t, "-n", "0") // eu-stack stops at 256 frames by default
	c.Report, c.Run = unwindJSON(t, nil, c.Core, c.Exe)
	compareWithReferences(t, c.GDB, c.EU, c.Report)
	c.expectSignal(t, 11, "SIGSEGV")
	th := c.crashed(t)
	if th.Truncated || th.Error != nil {
		t.Errorf("walk incomplete (truncated=%v):\n%s", th.Truncated, formatFrames(th, 10))
	}
	g := c.GDB[th.TID]
	if g == nil || len(g.Frames) == 0 || len(th.Frames) == 0 {
		t.Fatalf("no frames for the crashed thread %d (gdb: %v)", th.TID, g != nil)
	}
	// The premise: the faulting instruction is the push at the function's
	// first byte, and pc-1 belongs to another function.
	pc0 := g.Frames[0].PC
	if s := gdbInfoSymbol(t, c.Exe, c.Core, pc0, pc0-1); s[0] != (symbolAt{"overflow_entry", 0}) || s[1].Name == "overflow_entry" || s[1].Name == "" {
		t.Fatalf("layout changed: gdb says the fault is at %v and pc-1 is %v; want overflow_entry+0 and another function", s[0], s[1])
	}
	if insn := gdbInstruction(t, c.Exe, c.Core, pc0); !strings.Contains(insn, "push") || !strings.Contains(insn, "%rbp") {
		t.Fatalf("faulting instruction is %q, want push %%rbp", insn)
	}
	if f := th.Frames[0]; f.Function != "overflow_entry" || f.FunctionOffset != "0x0" {
		t.Errorf("frame 0 is not overflow_entry+0x0: %s", f)
	}
	// Every frame gdb prints, in order, with the same pc and name.
	if len(th.Frames) != len(g.Frames) {
		t.Errorf("%d frames, gdb %d", len(th.Frames), len(g.Frames))
	}
	n := 0
	for i := 0; i < len(th.Frames) && i < len(g.Frames); i++ {
		pc, _ := th.Frames[i].pc()
		if pc != g.Frames[i].PC || normalizeFunc(th.Frames[i].Function) != normalizeFunc(g.Frames[i].Func) {
			t.Fatalf("frame %d: coreunwind %s, gdb %s", i, th.Frames[i], g.Frames[i].Raw)
		}
		if th.Frames[i].Function == "overflow_entry" {
			n++
		}
	}
	if n < 1000 {
		t.Errorf("only %d overflow_entry frames; the 32 KiB stack holds about 2000", n)
	}
	expectFunctions(t, th, "overflow_entry", "call_misaligned", "overflow_thread", "start_thread")
}

// gdbAfterSignal returns gdb's frame after its "<signal handler called>".
func gdbAfterSignal(t *testing.T, g *refbt.Thread) refbt.Frame {
	t.Helper()
	if g != nil {
		for i, f := range g.Frames {
			if !f.HasPC && strings.Contains(f.Raw, "<signal handler called>") && i+1 < len(g.Frames) {
				return g.Frames[i+1]
			}
		}
	}
	t.Fatalf("gdb shows no frame after a signal frame")
	return refbt.Frame{}
}

// A symbolAt is a function and an offset in it, as gdb's "info symbol"
// names an address.
type symbolAt struct {
	Name   string
	Offset uint64
}

func (s symbolAt) String() string { return fmt.Sprintf("%s+%d", s.Name, s.Offset) }

var gdbInfoSymbolRE = regexp.MustCompile(`^(\S+)(?: \+ (\d+))? in section `)

// gdbInfoSymbol asks gdb which symbol covers each address of the core's
// process ("" where none does).
func gdbInfoSymbol(t *testing.T, exe, core string, addrs ...uint64) []symbolAt {
	t.Helper()
	var cmds []string
	for _, a := range addrs {
		cmds = append(cmds, fmt.Sprintf("info symbol %#x", a))
	}
	out := gdbCommands(t, exe, core, cmds...)
	syms := make([]symbolAt, 0, len(addrs))
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "No symbol matches") {
			syms = append(syms, symbolAt{})
		} else if m := gdbInfoSymbolRE.FindStringSubmatch(line); m != nil {
			off, _ := strconv.ParseUint(m[2], 10, 64)
			syms = append(syms, symbolAt{m[1], off})
		}
	}
	if len(syms) != len(addrs) {
		t.Fatalf("gdb's info symbol for %#x: %d answers:\n%s", addrs, len(syms), out)
	}
	return syms
}

// gdbInstruction returns gdb's disassembly of the instruction at addr.
func gdbInstruction(t *testing.T, exe, core string, addr uint64) string {
	t.Helper()
	out := gdbCommands(t, exe, core, fmt.Sprintf("x/i %#x", addr))
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, fmt.Sprintf("%#x", addr)) {
			return strings.TrimSpace(line)
		}
	}
	t.Fatalf("gdb did not disassemble %#x:\n%s", addr, out)
	return ""
}

// gdbCommands runs gdb commands on a core and returns their output.
func gdbCommands(t *testing.T, exe, core string, cmds ...string) string {
	t.Helper()
	args := []string{"-batch", "-nx"}
	for _, c := range cmds {
		args = append(args, "-ex", c)
	}
	return runTool(t, testenv.NeedTool(t, "gdb"), append(args, exe, core)...)
}

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// crashJSON is coreunwind's JSON report of a core's crashed thread, with
// its crash analysis.
func crashJSON(t *testing.T, core, exe string) (*report, *crashInfo) {
	t.Helper()
	rep, r := unwindJSON(t, []string{"--threads", "crashed"}, core, exe)
	var ci crashInfo
	if err := json.Unmarshal([]byte(r.Stdout), &ci); err != nil {
		t.Fatal(err)
	}
	if ci.Crash == nil {
		t.Fatalf("report has no crash analysis")
	}
	return rep, &ci
}

// gdbUnderHandler is what gdb says of the frame a signal handler's
// signal frame interrupted: the frame after "<signal handler called>"
// in its backtrace, selected, its x/i $pc and info registers (gdb
// restores them from the signal context).
type gdbUnderHandler struct {
	pc, insn, insnRaw string
	regs              map[string]string
}

var gdbSignalFrame = regexp.MustCompile(`(?m)^#(\d+)\s+<signal handler called>`)

func runGDBUnderHandler(t *testing.T, tool string, extra []string, exe, core string) *gdbUnderHandler {
	t.Helper()
	gdb := testenv.NeedTool(t, tool)
	base := append(append([]string{"-batch", "-nx"}, extra...), "-ex", "set pagination off", "-ex", "set width 0")
	bt := runTool(t, gdb, append(base, "-ex", "bt", exe, core)...)
	m := gdbSignalFrame.FindStringSubmatch(bt)
	if m == nil {
		t.Fatalf("gdb's backtrace has no signal frame:\n%s", bt)
	}
	n, _ := strconv.Atoi(m[1])
	out := runTool(t, gdb, append(base, "-ex", fmt.Sprintf("frame %d", n+1), "-ex", "x/i $pc", "-ex", "echo \\n",
		"-ex", "info registers", exe, core)...)
	g := &gdbUnderHandler{regs: map[string]string{}}
	im := gdbInsnLine.FindStringSubmatch(out)
	if im == nil {
		t.Fatalf("gdb printed no instruction in frame %d:\n%s", n+1, out)
	}
	g.insnRaw, g.pc, g.insn = im[0], im[1], normInsn(im[2])
	for _, rm := range gdbRegLine.FindAllStringSubmatch(out, -1) {
		g.regs[rm[1]] = rm[2]
	}
	return g
}

// printedFaultAddress is the address reraise.c printed before reading it.
func printedFaultAddress(t *testing.T, output string) string {
	t.Helper()
	m := regexp.MustCompile(`fault address (0x[0-9a-f]+)`).FindStringSubmatch(output)
	if m == nil {
		t.Fatalf("the program printed no fault address:\n%s", output)
	}
	return m[1]
}

// checkReraised: the crash is the fault below the signal frame, a NULL
// read in read_count at the address the program printed, re-raised as
// SIGSEGV SI_TKILL; fault frame and signal frame are those of the
// thread's frames.
func checkReraised(t *testing.T, rep *report, ci *crashInfo, fault, faultFunc string) {
	t.Helper()
	cr := ci.Crash
	if s := rep.Core.Signal; s == nil || s.Name != "SIGSEGV" || s.Code != -6 {
		t.Fatalf("core signal %+v, want SIGSEGV SI_TKILL (-6)", s)
	}
	if !strings.Contains(cr.Summary, "(re-raised by the handler as SIGSEGV SI_TKILL)") {
		t.Errorf("summary %q does not say the handler re-raised it", cr.Summary)
	}
	if cr.Kind != "null_pointer" {
		t.Errorf("kind %q, want null_pointer (summary %q)", cr.Kind, cr.Summary)
	}
	r := cr.Reraised
	if r == nil {
		t.Fatalf("no reraised object; summary %q", cr.Summary)
	}
	if r.Signal.Name != "SIGSEGV" || r.Signal.CodeName == nil || *r.Signal.CodeName != "SI_TKILL" {
		t.Errorf("reraised.signal %+v, want SIGSEGV SI_TKILL", r.Signal)
	}
	if r.Fault.Name != "SIGSEGV" || r.Fault.CodeName == nil || *r.Fault.CodeName != "SEGV_MAPERR" || r.Fault.Address == nil || *r.Fault.Address != fault {
		t.Errorf("reraised.fault %+v (address %s), want SIGSEGV SEGV_MAPERR at %s", r.Fault, strptr(r.Fault.Address), fault)
	}
	if cr.Access == nil || cr.Access.Address != fault || cr.Access.Kind != "read" {
		t.Errorf("access %+v, want a read of %s", cr.Access, fault)
	}
	th := rep.thread(rep.Core.CrashedTID)
	if th == nil || r.FaultFrame != r.SignalFrame+1 || r.FaultFrame >= len(th.Frames) {
		t.Fatalf("signal frame %d, fault frame %d of the crashed thread", r.SignalFrame, r.FaultFrame)
	}
	if f := th.Frames[r.FaultFrame]; !strings.Contains(f.Function, faultFunc) || cr.Instruction == nil || cr.Instruction.Address != f.PC {
		t.Errorf("fault frame #%d is %s at %s, want %s at the instruction %+v", r.FaultFrame, f.Function, f.PC, faultFunc, cr.Instruction)
	}
}

// checkAgainstGDB: the instruction is gdb's x/i $pc in the frame under
// "<signal handler called>", and the crash's registers gdb's there.
func checkAgainstGDB(t *testing.T, ci *crashInfo, g *gdbUnderHandler, compareText bool) {
	t.Helper()
	in := ci.Crash.Instruction
	if in == nil {
		t.Fatalf("no instruction; gdb: %s", g.insnRaw)
	}
	if in.Address != g.pc || (compareText && normInsn(in.Text) != g.insn) {
		t.Errorf("instruction %s: %q; gdb under the signal frame: %s", in.Address, in.Text, g.insnRaw)
	}
	matched := 0
	for _, reg := range ci.Crash.Registers {
		if gv, ok := g.regs[reg.Name]; ok {
			if gv != reg.Value {
				t.Errorf("register %s = %s, gdb says %s under the signal frame", reg.Name, reg.Value, gv)
			}
			matched++
		}
	}
	if matched < 8 {
		t.Errorf("only %d registers compared with gdb's", matched)
	}
}

// TestReraisedFault: a SIGSEGV handler that restores the default action
// and raises the signal again (faulthandler's, the JVM's, Breakpad's
// way), with and without SA_SIGINFO (the x86 signal context's trap
// number and cr2; the saved siginfo), for x86_64 and i386, against gdb in
// the frame under its "<signal handler called>".
func TestReraisedFault(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"reraise", "i386-reraise"} {
		for _, mode := range []string{"reraise", "reraise-siginfo"} {
			t.Run(prog+"/"+mode, func(t *testing.T) {
				t.Parallel()
				c := crashProgram(t, buildProgram(t, prog), nil, mode)
				fault := printedFaultAddress(t, c.Output)
				rep, ci := crashJSON(t, c.Core, c.Exe)
				checkReraised(t, rep, ci, fault, "read_count")
				checkAgainstGDB(t, ci, runGDBUnderHandler(t, "gdb", nil, c.Exe, c.Core), true)
				text := runCoreunwind(t, "--threads", "crashed", c.Core, c.Exe).Stdout
				if !strings.Contains(text, "<read_count") || !strings.Contains(text, "re-raised by the handler as SIGSEGV SI_TKILL") {
					t.Errorf("the text report does not give read_count's instruction and the re-raise:\n%s", truncate(text, 2000))
				}
			})
		}
	}
}

// TestRaisedWhileBlocked: a handler that raises the signal while it is
// blocked and returns: the signal kills the thread back at the faulting
// instruction, with SI_TKILL and no signal frame. The report says the
// process raised it and shows gdb's x/i $pc, read_count's load.
func TestRaisedWhileBlocked(t *testing.T) {
	t.Parallel()
	c := crashProgram(t, buildProgram(t, "reraise"), nil, "reraise-blocked")
	rep, ci := crashJSON(t, c.Core, c.Exe)
	cr := ci.Crash
	if s := rep.Core.Signal; s == nil || s.Code != -6 {
		t.Fatalf("core signal %+v, want SI_TKILL", s)
	}
	if cr.Kind != "signal" || !strings.Contains(cr.Summary, "SIGSEGV (SI_TKILL) raised by the process itself") || cr.Reraised != nil || cr.Sender != nil {
		t.Errorf("kind %q summary %q reraised %v sender %v", cr.Kind, cr.Summary, cr.Reraised, cr.Sender)
	}
	g := runGDBCrash(t, gdbRef{tool: "gdb", kernel: true}, c.Exe, c.Core, "")
	if cr.Instruction == nil || cr.Instruction.Address != g.pc || normInsn(cr.Instruction.Text) != g.insn || !strings.Contains(g.insnRaw, "read_count") {
		t.Errorf("instruction %+v; gdb: %s", cr.Instruction, g.insnRaw)
	}
}

// TestReraisedFaultQemu: reraise.c's handlers under qemu-user, whose
// cores carry no siginfo: the fault is the one the kernel (qemu) saved
// in the handler's signal frame, in read_count, at the address the
// program printed, and gdb-multiarch decodes the same instruction there.
// AArch64's context records the fault address even for a handler
// without SA_SIGINFO; ppc64 (both byte orders) and ppc's rt_sigframe
// always hold the siginfo, s390x's only for SA_SIGINFO handlers (the
// others get a sigframe without one), and its si_addr is the fault's
// page: the access's address is the instruction's operand.
func TestReraisedFaultQemu(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "gdb-multiarch")
	for _, tc := range []struct {
		arch  testenv.CrossArch
		prog  string
		modes []string
	}{
		{a64, "a64-reraise", []string{"reraise", "reraise-siginfo"}},
		{testenv.PPC64LE, "ppc-reraise", []string{"reraise", "reraise-siginfo"}},
		{testenv.PPC64, "ppcbe-reraise", []string{"reraise", "reraise-siginfo"}},
		{testenv.PPC, "ppc32-reraise", []string{"reraise-siginfo"}},
		{s390x, "s390x-reraise", []string{"reraise-siginfo"}},
	} {
		for _, mode := range tc.modes {
			t.Run(tc.prog+"/"+mode, func(t *testing.T) {
				t.Parallel()
				checkReraisedQemu(t, tc.arch, tc.prog, mode)
			})
		}
	}
}

// checkReraisedQemu crashes prog in mode under qemu and checks the
// re-raised fault against what the program printed and gdb-multiarch.
func checkReraisedQemu(t *testing.T, arch testenv.CrossArch, prog, mode string) {
	t.Helper()
	c := qemuCrash(t, arch, prog, mode)
	fault := printedFaultAddress(t, c.Output)
	rep, ci := crashJSON(t, c.Core, c.Exe)
	cr := ci.Crash
	if !strings.Contains(cr.Summary, "(re-raised by the handler as SIGSEGV)") || cr.Reraised == nil {
		t.Fatalf("summary %q, reraised %v: not the re-raised fault", cr.Summary, cr.Reraised)
	}
	siAddr := fault
	if arch == s390x {
		a, err := strconv.ParseUint(fault, 0, 64)
		if err != nil {
			t.Fatal(err)
		}
		siAddr = fmt.Sprintf("%#x", a&^0xfff)
	}
	if a := cr.Reraised.Fault.Address; a == nil || *a != siAddr || cr.Access == nil || cr.Access.Address != fault {
		t.Errorf("fault address %s, access %+v; the program read %s (si_addr %s)", strptr(a), cr.Access, fault, siAddr)
	}
	th := rep.thread(rep.Core.CrashedTID)
	if f := th.Frames[cr.Reraised.FaultFrame]; f.Function != "read_count" || cr.Instruction == nil || cr.Instruction.Address != f.PC {
		t.Fatalf("fault frame %+v, instruction %+v", f, cr.Instruction)
	}
	out := runTool(t, "gdb-multiarch", "-batch", "-nx", "-iex", "set sysroot "+arch.Sysroot(),
		"-ex", "x/i "+cr.Instruction.Address, "-ex", "info symbol "+cr.Instruction.Address, c.Exe, c.Core)
	im := regexp.MustCompile(`(?m)^\s*(?:=> )?(0x[0-9a-f]+)(?: <[^>]*>)?:[ \t]*(.*)$`).FindStringSubmatch(out)
	if im == nil || normInsn(im[2]) != normInsn(cr.Instruction.Text) || !strings.Contains(out, "read_count") {
		t.Errorf("instruction %q at %s; gdb-multiarch:\n%s", cr.Instruction.Text, cr.Instruction.Address, out)
	}
}

// TestReraisedPythonFaulthandler: CPython's faulthandler reports a
// fault and re-raises it; the fault is glibc's strlen reading NULL for
// ctypes.string_at(0), below the signal frame on faulthandler's
// alternate stack. gdb's x/i names the pc; its text is not compared
// (gdb prints the EVEX compare by its alias vpcmpeqb).
func TestReraisedPythonFaulthandler(t *testing.T) {
	t.Parallel()
	py := testenv.NeedTool(t, "python3")
	out, err := exec.Command(py, "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Fatal(err)
	}
	exe := strings.TrimSpace(string(out))
	c := crashProgram(t, exe, nil, "-X", "faulthandler", "-c", "import ctypes; ctypes.string_at(0)")
	if !strings.Contains(c.Output, "Fatal Python error: Segmentation fault") {
		t.Fatalf("faulthandler did not report the fault:\n%s", c.Output)
	}
	rep, ci := crashJSON(t, c.Core, exe)
	checkReraised(t, rep, ci, "0x0", "strlen")
	checkAgainstGDB(t, ci, runGDBUnderHandler(t, "gdb", nil, exe, c.Core), false)
}

// TestSentSignal: kill -SEGV of a sleeping process: the report names the
// sender (this test) and decodes no instruction.
func TestSentSignal(t *testing.T) {
	t.Parallel()
	testenv.NeedCores(t)
	for _, prog := range []string{"reraise", "i386-reraise"} {
		t.Run(prog, func(t *testing.T) {
			t.Parallel()
			exe := buildProgram(t, prog)
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "sh", "-c", `ulimit -c unlimited; exec "$0" "$@"`, exe, "sleep")
			cmd.Dir = dir
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("%s did not get ready: %q %v", prog, line, err)
			}
			if err := syscall.Kill(cmd.Process.Pid, syscall.SIGSEGV); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			core := filepath.Join(dir, "core")
			testenv.WaitForCore(t, core)
			rep, ci := crashJSON(t, core, exe)
			cr := ci.Crash
			want := fmt.Sprintf("SIGSEGV (SI_USER) sent by pid %d (uid %d)", os.Getpid(), os.Getuid())
			if cr.Kind != "sent_signal" || cr.Summary != want || cr.Sender == nil || cr.Sender.PID != os.Getpid() || cr.Sender.UID != os.Getuid() {
				t.Errorf("kind %q summary %q sender %+v; want sent_signal %q", cr.Kind, cr.Summary, cr.Sender, want)
			}
			if cr.Instruction != nil || cr.Reraised != nil || rep.Core.Signal == nil || rep.Core.Signal.Code != 0 {
				t.Errorf("instruction %+v reraised %+v core signal %+v: a sent signal has no faulting instruction", cr.Instruction, cr.Reraised, rep.Core.Signal)
			}
			checkTextHeader(t, crash{Core: core, Exe: exe}, want)
		})
	}
}

package e2e

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// crashInfo mirrors the report's "crash" object and "mappings" list
// (report-json.md), the parts these tests check.
type crashInfo struct {
	Crash    *crashAnalysis `json:"crash"`
	Mappings []struct {
		Start, End, Perms, Offset string
		Path                      *string
	} `json:"mappings"`
}

// crashAnalysis mirrors the report's "crash" object.
type crashAnalysis struct {
	Summary     string   `json:"summary"`
	Kind        string   `json:"kind"`
	Details     []string `json:"details"`
	Instruction *struct {
		Address       string     `json:"address"`
		Text          string     `json:"text"`
		MemoryAddress *string    `json:"memory_address"`
		Registers     []regEntry `json:"registers"`
	} `json:"instruction"`
	Access *struct {
		Kind    string `json:"kind"`
		Address string `json:"address"`
	} `json:"access"`
	AbortMessage     *string    `json:"abort_message"`
	ExceptionType    *string    `json:"exception_type"`
	ExceptionMessage *string    `json:"exception_message"`
	TerminateMessage *string    `json:"terminate_message"`
	PanicLocation    *string    `json:"panic_location"`
	PanicMessage     *string    `json:"panic_message"`
	PanicThread      *string    `json:"panic_thread"`
	Recursion        []string   `json:"recursion"`
	Registers        []regEntry `json:"registers"`
	Reraised         *struct {
		Signal, Fault struct {
			Name     string  `json:"name"`
			Code     int     `json:"code"`
			CodeName *string `json:"code_name"`
			Address  *string `json:"address"`
		}
		SignalFrame int `json:"signal_frame"`
		FaultFrame  int `json:"fault_frame"`
	} `json:"reraised"`
	Sender *struct {
		PID int `json:"pid"`
		UID int `json:"uid"`
	} `json:"sender"`
}

type regEntry struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	How   string `json:"how"`
}

// A crashKind is one kind of crash and what the report must say of it.
type crashKind struct {
	name, prog string
	args       []string
	signal     string
	kind       string
	// summary holds substrings of the summary; "$gdb" in one stands for
	// the value gdb prints for gdbPrint.
	summary  []string
	gdbPrint string
	// recursion is the cycle a stack overflow must name.
	recursion []string
	// i386: the case also runs built for i386 (program "i386-"+prog).
	i386 bool
	// operandIsGDB: the instruction's memory address is the value gdb
	// prints for gdbPrint.
	operandIsGDB bool
	// noExceptionType: an uncaught exception whose type the core cannot
	// prove; the detail that says why.
	noExceptionType string
	// noWhat: an uncaught exception whose what() the core does not
	// prove (libstdc++ printed one); the detail that says why.
	noWhat string
	// pcPastInsn: the arch's pc is past the instruction that raised the
	// signal (s390x's SIGILL): no instruction, and the detail that says
	// why.
	pcPastInsn bool
}

// recordCount is the offset of crashkinds.c's record.count, which its
// NULL read and write access.
const recordCount = "/x (unsigned long)&((struct record *)0)->count"

var crashKinds = []crashKind{
	{name: "null-read", i386: true, prog: "crashkinds", args: []string{"null-read"}, signal: "SIGSEGV", kind: "null_pointer",
		summary: []string{"read of field at offset $gdb of a NULL pointer"}, gdbPrint: recordCount},
	{name: "null-write", i386: true, prog: "crashkinds", args: []string{"null-write"}, signal: "SIGSEGV", kind: "null_pointer",
		summary: []string{"write of field at offset $gdb of a NULL pointer"}, gdbPrint: recordCount},
	{name: "null-constant-write", i386: true, prog: "crashkinds", args: []string{"null-constant-write"}, signal: "SIGSEGV", kind: "null_pointer",
		summary: []string{"write through a NULL pointer (the instruction's constant address 0x0)"}},
	{name: "null-constant-read", i386: true, prog: "crashkinds", args: []string{"null-constant-read"}, signal: "SIGSEGV", kind: "null_pointer",
		summary: []string{"read of field at offset $gdb of a NULL pointer (the instruction's constant address $gdb)"}, gdbPrint: recordCount, operandIsGDB: true},
	{name: "wild-call", i386: true, prog: "crashkinds", args: []string{"wild-call"}, signal: "SIGSEGV", kind: "bad_jump",
		summary: []string{"execution of address 0xdead0000, outside every mapping: the call `call *%", " = 0xdead0000) in dispatch (frame #1) went there"}},
	{name: "null-function-pointer", prog: "nullfn-O0", signal: "SIGSEGV", kind: "bad_jump",
		summary: []string{"execution of address 0x0 (a NULL function pointer), outside every mapping: the call `call *%", " = 0x0) in dispatch (frame #1) went there"}},
	{name: "stack-overflow", i386: true, prog: "crashkinds", args: []string{"stack-overflow"}, signal: "SIGSEGV", kind: "stack_overflow",
		summary: []string{"stack overflow: recursion down_a -> down_b -> down_a"}, recursion: []string{"down_a", "down_b"}},
	{name: "thread-stack-overflow", i386: true, prog: "crashkinds", args: []string{"thread-overflow"}, signal: "SIGSEGV", kind: "stack_overflow",
		summary: []string{"stack overflow: recursion down_a -> down_b -> down_a", "in its guard page"}, recursion: []string{"down_a", "down_b"}},
	{name: "non-canonical", prog: "crashkinds", args: []string{"non-canonical"}, signal: "SIGSEGV", kind: "non_canonical_address",
		summary: []string{"read of non-canonical address 0x8000000000000010"}},
	{name: "string-literal-write", i386: true, prog: "crashkinds", args: []string{"rodata-write"}, signal: "SIGSEGV", kind: "write_to_read_only",
		summary: []string{"write to read-only memory at", "in .rodata of", "a string literal"}},
	{name: "assert", i386: true, prog: "crashkinds", args: []string{"assert"}, signal: "SIGABRT", kind: "assertion",
		summary: []string{"assertion failed: ", "Assertion `balance >= 0' failed."}},
	{name: "abort-message", i386: true, prog: "crashkinds", args: []string{"double-free"}, signal: "SIGABRT", kind: "abort_message",
		summary: []string{"abort() with message: free(): double free detected"}},
	{name: "uncaught-exception", i386: true, prog: "exception", signal: "SIGABRT", kind: "uncaught_exception",
		summary: []string{"uncaught C++ exception of type std::runtime_error, thrown by shop::Basket::checkout"}},
	{name: "uncaught-exception-static", i386: true, prog: "exception-static", signal: "SIGABRT", kind: "uncaught_exception",
		summary: []string{"uncaught C++ exception of type std::runtime_error, thrown by shop::Basket::checkout"}},
	{name: "uncaught-invalid-argument", prog: "what", args: []string{"invalid"}, signal: "SIGABRT", kind: "uncaught_exception",
		summary: []string{"uncaught C++ exception of type std::invalid_argument, thrown by shop::withdraw"}},
	{name: "uncaught-runtime-error-subclass", prog: "what", args: []string{"custom"}, signal: "SIGABRT", kind: "uncaught_exception",
		summary: []string{"uncaught C++ exception of type shop::StockError, thrown by shop::withdraw"}},
	{name: "uncaught-runtime-error-subclass-static", prog: "what-static", args: []string{"custom"}, signal: "SIGABRT", kind: "uncaught_exception",
		summary: []string{"uncaught C++ exception of type shop::StockError, thrown by shop::withdraw"}},
	{name: "uncaught-own-what", prog: "what", args: []string{"own-what"}, signal: "SIGABRT", kind: "uncaught_exception",
		summary: []string{"uncaught C++ exception of type shop::LoudError, thrown by shop::withdraw"},
		noWhat:  "the type overrides what() (0x"},
	{name: "rust-panic-abort", prog: "stock-abort", args: []string{"x"}, signal: "SIGABRT", kind: "rust_panic",
		summary: []string{"Rust panic: thread 'order-worker' panicked at ", "stock.rs:14:9", ", in stock::reserve"}},
	{name: "rust-panic-abort-formatted", prog: "stock-abort", args: []string{"x", "fmt"}, signal: "SIGABRT", kind: "rust_panic",
		summary: []string{"Rust panic: thread 'order-worker' panicked at ", "stock.rs:12:13", ", in stock::reserve"}},
	{name: "rust-panic-hook", prog: "stock-unwind", args: []string{"hook"}, signal: "SIGABRT", kind: "rust_panic",
		summary: []string{"Rust panic: thread 'order-worker' panicked at ", "stock.rs:14:9", ", in stock::reserve"}},
	{name: "rust-panic-hook-formatted", prog: "stock-unwind", args: []string{"hook", "fmt"}, signal: "SIGABRT", kind: "rust_panic",
		summary: []string{"Rust panic: thread 'order-worker' panicked at ", "stock.rs:12:13", ", in stock::reserve"}},
	{name: "rust-panic-begin-panic", prog: "stock-2015", args: []string{"x"}, signal: "SIGABRT", kind: "rust_panic",
		summary: []string{"Rust panic: thread 'order-worker' panicked at ", "stock.rs:14:9", ", in stock::reserve"}},
	{name: "sigill", i386: true, prog: "crashkinds", args: []string{"sigill"}, signal: "SIGILL", kind: "trap_instruction",
		summary: []string{"executed ud2 at"}},
	{name: "sigfpe", i386: true, prog: "crashkinds", args: []string{"sigfpe"}, signal: "SIGFPE", kind: "division_by_zero",
		summary: []string{"integer division by zero: idivl"}},
	{name: "exec-data", i386: true, prog: "crashkinds", args: []string{"exec-data"}, signal: "SIGSEGV", kind: "exec_non_executable",
		summary: []string{"execution of non-executable memory at ", "in .data of ", "crashkinds", "the call `call *%", " in dispatch (frame #1) went there"}},
	{name: "misaligned", i386: true, prog: "crashkinds", args: []string{"misaligned"}, signal: "SIGBUS", kind: "misaligned",
		summary: []string{"misaligned read of 0x"}},
	{name: "sigbus-truncated-mmap", i386: true, prog: "crashkinds", args: []string{"sigbus"}, signal: "SIGBUS", kind: "beyond_end_of_file",
		summary: []string{"at offset 0x1000 of the mapped file ", "truncated.dat: that page lies past the end of the file"}},
}

// TestCrashInfo crashes a program in each way the report explains and
// checks the report's crash analysis against gdb on the same core: the
// instruction (x/i $pc), the registers (info registers), the memory map
// (info proc mappings; permissions from readelf -l), the fault address
// ($_siginfo), glibc's abort message (print __abort_msg->msg, with
// libc6-dbg), and what the program itself printed (the assertion, the
// C++ exception's type).
func TestCrashInfo(t *testing.T) {
	t.Parallel()
	var all []crashKind
	for _, k := range crashKinds {
		all = append(all, k)
		if k.i386 {
			k.name, k.prog = "i386/"+k.name, "i386-"+k.prog
			all = append(all, k)
		}
	}
	for _, k := range all {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			exe := buildProgram(t, k.prog)
			c := crashProgram(t, exe, nil, k.args...)
			checkCrashKind(t, k, c, gdbRef{tool: "gdb", kernel: true})
		})
	}
}

// qemuCrashArch is one guest architecture of TestCrashInfoQemu: its
// crashkinds program and the summaries that differ by arch.
type qemuCrashArch struct {
	name string
	arch testenv.CrossArch
	prog string // crashkinds built static for the arch
	// wildCall holds the substrings of the wild call's summary (the
	// call instruction and the register it went through); nil where
	// a function pointer is not a code address (ELFv1's descriptors).
	wildCall []string
	// trap is the signal and text of __builtin_trap's instruction;
	// "" where it does not compile to one that always traps.
	trapSignal, trap string
	// condTrap is the text of the conditional trap gcc makes of a
	// check that ends in __builtin_trap; "" where there is none.
	// condTrapReg is the register it compares ("r4" where unset).
	condTrap, condTrapReg string
	// exception is exception.cc built static for the arch ("": no
	// C++ cross compiler); exceptionUnknown the reason its core cannot
	// prove the type, "" where it can.
	exception, exceptionUnknown string
}

var qemuCrashArches = []qemuCrashArch{
	// qemu-aarch64's cores have no NT_ARM_TLS: no thread pointer, so
	// no exception type.
	{name: "aarch64", arch: testenv.AArch64, prog: "a64-crashkinds", exception: "a64-exception", exceptionUnknown: "no thread pointer in the core",
		wildCall:   []string{"the call `blr x", " = 0xdead0000) in dispatch (frame #1) went there"},
		trapSignal: "SIGTRAP", trap: "executed brk #0x3e8 at"},
	// Thumb-2 code: the wild call leaves Thumb (the target is even),
	// the call is decoded as Thumb by frame 1's cpsr.
	{name: "arm", arch: testenv.ARMHF, prog: "arm-crashkinds",
		wildCall:   []string{"the call `blx r", " = 0xdead0000) in dispatch (frame #1) went there"},
		trapSignal: "SIGILL", trap: "executed udf #255 at"},
	{name: "ppc64le", arch: testenv.PPC64LE, prog: "ppc-crashkinds", exception: "ppc-exception",
		wildCall:   []string{"the call `bctrl` (ctr = 0xdead0000) in dispatch (frame #1) went there"},
		trapSignal: "SIGTRAP", trap: "executed trap at", condTrap: "executed tdeqi r4,0 at"},
	{name: "ppc64", arch: testenv.PPC64, prog: "ppcbe-crashkinds", exception: "ppcbe-exception",
		trapSignal: "SIGTRAP", trap: "executed trap at", condTrap: "executed tdeqi r4,0 at"},
	{name: "s390x", arch: testenv.S390X, prog: "s390x-crashkinds", exception: "s390x-exception",
		wildCall: []string{"the call `basr %r14,%r", " = 0xdead0000) in dispatch (frame #1) went there"}},
	// The call in frame 1 is before its delay slot; __builtin_trap is
	// "teq zero,zero", a division by zero gcc's check "teq a1,zero,7".
	{name: "mips", arch: testenv.MIPS, prog: "mips-crashkinds",
		wildCall:   []string{"the call `jalr t9` (t9 = 0xdead0000) in dispatch (frame #1) went there"},
		trapSignal: "SIGTRAP", trap: "executed teq zero,zero at", condTrap: "executed teq a1,zero,0x7 at", condTrapReg: "a1"},
}

func init() {
	for _, a := range qemuCrashArches {
		programs[a.prog] = cc(a.arch.CC(), "crashkinds", "-g", "-O0", "crashkinds.c", "-lpthread", "-static", "-Wl,-z,separate-code")
		if a.exception != "" && a.name != "aarch64" { // a64-exception is aarch64_test.go's
			programs[a.exception] = cc(a.arch.Triple+"-g++", "exception", "-g", "-O1", "exception.cc", "-static", "-Wl,-z,separate-code")
		}
	}
}

// noSiginfo ends the summary of a fault proven from the instruction.
const noSiginfo = "(from the instruction; the core has no siginfo)"

// TestCrashInfoQemu: the crash kinds built for each qemu-user arch
// (static) and crashed under qemu-user, against gdb-multiarch: the
// faulting instruction (x/i $pc), the registers it used and the frame's
// (info registers), the abort message (__abort_msg). qemu's cores record
// no siginfo (no fault address or code): a NULL read or write is proven
// from the decoded instruction's operand, below vm.mmap_min_addr, and
// says so; a jump outside every mapping and a trap instruction are
// proven by the pc and the code alone.
func TestCrashInfoQemu(t *testing.T) {
	t.Parallel()
	testenv.NeedTool(t, "gdb-multiarch")
	for _, a := range qemuCrashArches {
		kinds := []crashKind{
			{name: "null-read", args: []string{"null-read"}, signal: "SIGSEGV", kind: "null_pointer",
				summary:  []string{"read of field at offset $gdb of a NULL pointer", noSiginfo},
				gdbPrint: recordCount, operandIsGDB: true},
			{name: "null-write", args: []string{"null-write"}, signal: "SIGSEGV", kind: "null_pointer",
				summary:  []string{"write of field at offset $gdb of a NULL pointer", noSiginfo},
				gdbPrint: recordCount, operandIsGDB: true},
			{name: "assert", args: []string{"assert"}, signal: "SIGABRT", kind: "assertion",
				summary: []string{"assertion failed: ", "Assertion `balance >= 0' failed."}},
			{name: "abort-message", args: []string{"double-free"}, signal: "SIGABRT", kind: "abort_message",
				summary: []string{"abort() with message: free(): double free detected"}},
		}
		if a.wildCall != nil {
			kinds = append(kinds, crashKind{name: "wild-call", args: []string{"wild-call"}, signal: "SIGSEGV", kind: "bad_jump",
				summary: append([]string{"execution of address 0xdead0000, outside every mapping: "}, a.wildCall...)})
		}
		switch {
		case a.trap != "":
			kinds = append(kinds, crashKind{name: "trap", args: []string{"sigill"}, signal: a.trapSignal, kind: "trap_instruction",
				summary: []string{a.trap, "always raises " + a.trapSignal}})
		case a.name == "s390x":
			// __builtin_trap is "j .+2" into the illegal halfword
			// 0x0001; the PSW is past it.
			kinds = append(kinds, crashKind{name: "trap", args: []string{"sigill"}, signal: "SIGILL", kind: "signal",
				summary: []string{"SIGILL"}, pcPastInsn: true})
		}
		if a.condTrap != "" {
			kinds = append(kinds, crashKind{name: "conditional-trap", args: []string{"cond-trap"}, signal: "SIGTRAP", kind: "trap_instruction",
				summary: []string{a.condTrap, "a conditional trap instruction whose comparison held (" + cmp.Or(a.condTrapReg, "r4") + " = 0x0)"}})
		}
		for i := range kinds {
			kinds[i].prog = a.prog
		}
		if a.exception != "" {
			// The type from libstdc++'s exception globals in the
			// thread's TLS: the executable's TLS block through the
			// DTV the thread pointer leads to.
			kinds = append(kinds, crashKind{name: "uncaught-exception", prog: a.exception, signal: "SIGABRT", kind: "uncaught_exception",
				summary:         []string{"uncaught C++ exception", "thrown by shop::Basket::checkout"},
				noExceptionType: a.exceptionUnknown})
		}
		for _, k := range kinds {
			t.Run(a.name+"/"+k.name, func(t *testing.T) {
				t.Parallel()
				c := qemuCrash(t, a.arch, k.prog, k.args...)
				checkCrashKind(t, k, c, gdbRef{tool: "gdb-multiarch", extra: []string{"-iex", "set sysroot " + a.arch.Sysroot()}})
			})
		}
	}
}

// TestCrashInfoRISCV64: the crash kinds built for riscv64 (static),
// whose cores the test writes from what the live gdb read through
// qemu-riscv64's gdbstub at the signal (rvLiveCore; qemu 7.2 writes
// none), judged by gdb-multiarch on that core. Such a core holds the
// program's sections and the stacks, not the heap or glibc's mmapped
// abort message, so the abort kinds are not among them.
func TestCrashInfoRISCV64(t *testing.T) {
	t.Parallel()
	for _, k := range []crashKind{
		{name: "null-read", args: []string{"null-read"}, signal: "SIGSEGV", kind: "null_pointer",
			summary:  []string{"read of field at offset $gdb of a NULL pointer", noSiginfo},
			gdbPrint: recordCount, operandIsGDB: true},
		{name: "null-write", args: []string{"null-write"}, signal: "SIGSEGV", kind: "null_pointer",
			summary:  []string{"write of field at offset $gdb of a NULL pointer", noSiginfo},
			gdbPrint: recordCount, operandIsGDB: true},
		{name: "wild-call", args: []string{"wild-call"}, signal: "SIGSEGV", kind: "bad_jump",
			summary: []string{"execution of address 0xdead0000, outside every mapping: the call `jalr ", " = 0xdead0000) in dispatch (frame #1) went there"}},
		{name: "trap", args: []string{"sigill"}, signal: "SIGTRAP", kind: "trap_instruction",
			summary: []string{"executed ebreak at", "always raises SIGTRAP"}},
	} {
		k.prog = "rv-crashkinds"
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			live := rvLiveCore(t, k.prog, 1, k.args...)
			checkCrashKind(t, k, live.crash, gdbRef{tool: "gdb-multiarch", extra: []string{"-iex", "set sysroot " + rv.Sysroot()}, writtenCore: true})
		})
	}
}

// gdbRef is the gdb that judges a core: its name, options, and whether
// the core is the kernel's (with siginfo and NT_FILE, which gdb's
// $_siginfo and info proc mappings need).
type gdbRef struct {
	tool   string
	extra  []string
	kernel bool
	// writtenCore: the test wrote the core (riscv64), its NT_FILE from
	// gdb's section list, which no mapping boundary follows: gdb's
	// mappings are not compared, the PT_LOADs are.
	writtenCore bool
}

// checkCrashKind runs coreunwind on a crash of kind k and checks its
// analysis against gdb and what the program printed.
func checkCrashKind(t *testing.T, k crashKind, c crash, ref gdbRef) {
	t.Helper()
	rep, r := unwindJSON(t, []string{"--threads", "crashed"}, c.Core, c.Exe)
	var ci crashInfo
	if err := json.Unmarshal([]byte(r.Stdout), &ci); err != nil {
		t.Fatal(err)
	}
	if ci.Crash == nil {
		t.Fatalf("report has no crash analysis")
	}
	cr := ci.Crash
	c.expectSignalName(t, rep, k.signal)
	if k.name == "null-read" {
		checkLoadRegs(t, cr)
	}
	g := runGDBCrash(t, ref, c.Exe, c.Core, k.gdbPrint)

	if cr.Kind != k.kind {
		t.Errorf("kind = %q, want %q (summary %q)", cr.Kind, k.kind, cr.Summary)
	}
	for _, want := range k.summary {
		want = strings.ReplaceAll(want, "$gdb", g.print)
		if !strings.Contains(cr.Summary, want) {
			t.Errorf("summary %q lacks %q", cr.Summary, want)
		}
	}
	if k.recursion != nil && strings.Join(cr.Recursion, " ") != strings.Join(k.recursion, " ") {
		t.Errorf("recursion = %q, want %q", cr.Recursion, k.recursion)
	}

	// The instruction: gdb's x/i $pc, or none where gdb cannot
	// read the pc either.
	switch {
	case g.insn == "" && cr.Instruction != nil:
		t.Errorf("instruction %q at %s, but gdb cannot read the pc:\n%s", cr.Instruction.Text, cr.Instruction.Address, g.insnRaw)
	case k.pcPastInsn:
		if cr.Instruction != nil || !slices.ContainsFunc(cr.Details, func(d string) bool { return strings.Contains(d, "is past the faulting instruction") }) {
			t.Errorf("instruction %+v, details %q; the pc is past the faulting one", cr.Instruction, cr.Details)
		}
	case g.insn != "" && k.signal != "SIGABRT":
		if cr.Instruction == nil {
			t.Fatalf("no instruction; gdb: %s", g.insnRaw)
		}
		if normInsn(cr.Instruction.Text) != g.insn || cr.Instruction.Address != g.pc {
			t.Errorf("instruction %s: %q; gdb: %s", cr.Instruction.Address, cr.Instruction.Text, g.insnRaw)
		}
		for _, reg := range cr.Instruction.Registers {
			if gv, ok := g.regs[reg.Name]; ok && gv != reg.Value {
				t.Errorf("instruction register %s = %s, gdb says %s", reg.Name, reg.Value, gv)
			}
		}
		if k.operandIsGDB && (cr.Instruction.MemoryAddress == nil || *cr.Instruction.MemoryAddress != g.print) {
			t.Errorf("instruction %q: memory address %v, gdb says the field is at %s", cr.Instruction.Text, strptr(cr.Instruction.MemoryAddress), g.print)
		}
	}

	// The crashing frame's registers: gdb's info registers.
	if len(cr.Registers) == 0 {
		t.Errorf("no registers")
	}
	matched := 0
	for _, reg := range cr.Registers {
		gv, ok := g.regs[reg.Name]
		switch {
		case !ok && ref.kernel:
			t.Errorf("register %s: gdb has none", reg.Name)
		case ok && gv != reg.Value:
			t.Errorf("register %s = %s, gdb says %s", reg.Name, reg.Value, gv)
		case ok:
			matched++
		}
	}
	if matched < 8 {
		t.Errorf("only %d registers are gdb's", matched)
	}

	// The fault address: gdb's $_siginfo.
	switch {
	case k.kind == "non_canonical_address" || k.kind == "misaligned":
		// A general-protection fault or x86's alignment check: the
		// kernel reports si_addr 0, the address is the instruction's
		// (gdb's registers checked it above).
		if g.siAddr != "0x0" || cr.Access == nil || cr.Instruction == nil || cr.Instruction.MemoryAddress == nil ||
			cr.Access.Address != *cr.Instruction.MemoryAddress {
			t.Errorf("access %+v, instruction %+v; gdb's si_addr %s", cr.Access, cr.Instruction, g.siAddr)
		}
		if k.kind == "misaligned" && cr.Access != nil {
			if a, err := strconv.ParseUint(strings.TrimPrefix(cr.Access.Address, "0x"), 16, 64); err != nil || a%2 == 0 {
				t.Errorf("access address %s is not the odd address the program read", cr.Access.Address)
			}
		}
	case cr.Access != nil && (ref.kernel || g.siAddr != "") && cr.Access.Address != g.siAddr:
		t.Errorf("access address %s, gdb's si_addr %s", cr.Access.Address, g.siAddr)
	}
	if (k.signal == "SIGSEGV" || k.signal == "SIGBUS") && k.kind != "signal" {
		if cr.Access == nil {
			t.Errorf("no access for a %s", k.signal)
		}
	}

	// The abort message: gdb's __abort_msg->msg, and what glibc
	// printed.
	if k.signal == "SIGABRT" && strings.HasSuffix(k.prog, "crashkinds") {
		if cr.AbortMessage == nil || g.abortMsg == "" || *cr.AbortMessage != g.abortMsg {
			t.Errorf("abort message %v; gdb: %q", strptr(cr.AbortMessage), g.abortMsg)
		}
		if cr.AbortMessage != nil && !strings.Contains(c.Output, *cr.AbortMessage) {
			t.Errorf("abort message %q is not what the program printed:\n%s", *cr.AbortMessage, c.Output)
		}
	}
	if k.kind == "uncaught_exception" && k.noExceptionType != "" {
		if cr.ExceptionType != nil || !slices.ContainsFunc(cr.Details, func(d string) bool { return strings.Contains(d, k.noExceptionType) }) {
			t.Errorf("exception type %v, details %q; want none, because %q", strptr(cr.ExceptionType), cr.Details, k.noExceptionType)
		}
	} else if k.kind == "uncaught_exception" {
		m := regexp.MustCompile(`terminate called after throwing an instance of '([^']+)'`).FindStringSubmatch(c.Output)
		if m == nil || cr.ExceptionType == nil || *cr.ExceptionType != m[1] {
			t.Errorf("exception type %v; libstdc++ printed:\n%s", strptr(cr.ExceptionType), c.Output)
		}
	}
	if k.kind == "uncaught_exception" {
		checkWhat(t, k, cr.ExceptionMessage, cr.Details, c.Output)
	}
	if k.kind == "rust_panic" {
		checkPanic(t, cr, c.Output)
	}

	if ref.writtenCore {
		g.maps = nil
	}
	checkMappings(t, &ci, g, c.Core, ref.kernel)
	var lines []string
	if cr.ExceptionMessage != nil {
		// libstdc++'s two lines, as one.
		if m := regexp.MustCompile(`(?m)^terminate called after throwing .*\n  what\(\):  .*$`).FindString(c.Output); m != "" {
			lines = append(lines, "exception:   "+strings.Replace(m, "\n", "", 1))
		}
	}
	checkTextHeader(t, c, cr.Summary, lines...)
}

// checkLoadRegs: a load's crash line lists the registers it reads, those
// its memory operand names: what it loads into is not read (unless it
// also addresses memory).
func checkLoadRegs(t *testing.T, cr *crashAnalysis) {
	t.Helper()
	if cr.Instruction == nil {
		t.Errorf("no instruction for a NULL read")
		return
	}
	text := cr.Instruction.Text
	i := strings.IndexAny(text, "[(")
	j := strings.IndexAny(text, "])")
	if i < 0 || j < i {
		t.Errorf("instruction %q has no memory operand", text)
		return
	}
	mem := text[i : j+1]
	for _, r := range cr.Instruction.Registers {
		if !regexp.MustCompile(`\b` + regexp.QuoteMeta(r.Name) + `\b`).MatchString(mem) {
			t.Errorf("instruction %q lists %s, which its memory operand %s does not name", text, r.Name, mem)
		}
	}
}

// checkWhat: the exception's what() is the one libstdc++'s verbose
// terminate handler printed, or none (with the detail that says why)
// where k expects none.
func checkWhat(t *testing.T, k crashKind, msg *string, details []string, output string) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^  what\(\):  (.*)$`).FindStringSubmatch(output)
	switch {
	case k.noWhat != "" || k.noExceptionType != "":
		if msg != nil || (k.noWhat != "" && !slices.ContainsFunc(details, func(d string) bool { return strings.Contains(d, k.noWhat) })) {
			t.Errorf("exception message %v, details %q; want none, because %q", strptr(msg), details, k.noWhat)
		}
	case m == nil:
		t.Errorf("libstdc++ printed no what():\n%s", output)
	case msg == nil || *msg != m[1]:
		t.Errorf("exception message %v; libstdc++ printed:\n%s", strptr(msg), output)
	}
}

// checkPanic: a Rust panic's thread, location and message are the ones
// the program's panic hook printed, and the summary says them in its
// words.
func checkPanic(t *testing.T, cr *crashAnalysis, output string) {
	t.Helper()
	p, ok := printedPanic(output)
	if !ok {
		t.Fatalf("the program printed no panic:\n%s", output)
	}
	if cr.PanicThread == nil || *cr.PanicThread != p.thread {
		t.Errorf("panic thread %v; the program printed:\n%s", strptr(cr.PanicThread), output)
	}
	if cr.PanicLocation == nil || *cr.PanicLocation != p.loc {
		t.Errorf("panic location %v; the program printed:\n%s", strptr(cr.PanicLocation), output)
	}
	if cr.PanicMessage == nil || *cr.PanicMessage != p.msg {
		t.Errorf("panic message %v (details %q); the program printed:\n%s", strptr(cr.PanicMessage), cr.Details, output)
	}
	if want := "Rust panic: thread '" + p.thread + "' panicked at " + p.loc + ": " + p.msg + ","; !strings.HasPrefix(cr.Summary, want) {
		t.Errorf("summary %q lacks %q", cr.Summary, want)
	}
}

// printedPanicFacts are what std's default hook printed of a panic.
type printedPanicFacts struct{ thread, loc, msg string }

// printedPanic is the panic std's default hook printed: "thread 'name'
// panicked at FILE:LINE:COL:\nMESSAGE" (Rust 1.73 and later; the
// thread's id after its name since 1.88), or "thread 'name' panicked at
// 'MESSAGE', FILE:LINE:COL" (before).
func printedPanic(output string) (printedPanicFacts, bool) {
	if m := regexp.MustCompile(`(?m)^thread '([^']*)'(?: \(\d+\))? panicked at ([^'\n]+:\d+:\d+):\n(.*)$`).FindStringSubmatch(output); m != nil {
		return printedPanicFacts{m[1], m[2], m[3]}, true
	}
	if m := regexp.MustCompile(`(?m)^thread '([^']*)' panicked at '(.*)', (\S+:\d+:\d+)$`).FindStringSubmatch(output); m != nil {
		return printedPanicFacts{m[1], m[3], m[2]}, true
	}
	return printedPanicFacts{}, false
}

func strptr(s *string) string {
	if s == nil {
		return "(null)"
	}
	return strconv.Quote(*s)
}

func (c *crash) expectSignalName(t *testing.T, rep *report, name string) {
	t.Helper()
	if rep.Core.Signal == nil || rep.Core.Signal.Name != name {
		t.Fatalf("signal %+v, want %s", rep.Core.Signal, name)
	}
}

// checkMappings: every mapping gdb lists (the core's NT_FILE) is in the
// report with its offset and file; every PT_LOAD of the core is a mapping
// with readelf's permissions.
func checkMappings(t *testing.T, ci *crashInfo, g *gdbCrash, core string, kernel bool) {
	t.Helper()
	type key struct{ start, end string }
	have := map[key]int{}
	for i, m := range ci.Mappings {
		have[key{m.Start, m.End}] = i
	}
	for _, gm := range g.maps {
		i, ok := have[key{gm.start, gm.end}]
		if !ok {
			t.Errorf("gdb's mapping %s-%s %s is not in the report", gm.start, gm.end, gm.path)
			continue
		}
		m := ci.Mappings[i]
		if m.Offset != gm.offset || m.Path == nil || *m.Path != gm.path {
			t.Errorf("mapping %s-%s: offset %s file %s; gdb: %s %s", m.Start, m.End, m.Offset, strptr(m.Path), gm.offset, gm.path)
		}
	}
	if len(g.maps) == 0 && kernel {
		t.Errorf("gdb listed no mappings")
	}
	loads := readelfLoads(t, core)
	if len(loads) == 0 {
		t.Fatalf("readelf listed no PT_LOAD in %s", core)
	}
	for _, l := range loads {
		i, ok := have[key{l.start, l.end}]
		if !ok {
			t.Errorf("PT_LOAD %s-%s is not a mapping of the report", l.start, l.end)
			continue
		}
		if ci.Mappings[i].Perms != l.perms {
			t.Errorf("mapping %s-%s perms %q; readelf: %q", l.start, l.end, ci.Mappings[i].Perms, l.perms)
		}
	}
}

// checkTextHeader: the text report says what happened before any
// thread, and these lines with it.
func checkTextHeader(t *testing.T, c crash, summary string, lines ...string) {
	t.Helper()
	r := runCoreunwind(t, "--threads", "crashed", c.Core, c.Exe)
	head, _, _ := strings.Cut(r.Stdout, "\nThread ")
	for _, want := range append([]string{"crash:       " + summary}, lines...) {
		if !strings.Contains(head, "\n"+want+"\n") {
			t.Errorf("the text header does not say %q:\n%s", want, head)
		}
	}
}

// gdbCrash is what gdb says about a crashed core.
type gdbCrash struct {
	pc, insn, insnRaw string // x/i $pc: address, normalized text, the line
	regs              map[string]string
	maps              []gdbMapping
	siAddr            string
	abortMsg          string
	print             string // the value of the extra print
}

type gdbMapping struct{ start, end, offset, path string }

var (
	gdbInsnLine = regexp.MustCompile(`(?m)^=> (0x[0-9a-f]+)(?: <[^>]*>)?:[ \t]*(.*)$`)
	gdbRegLine  = regexp.MustCompile(`(?m)^([a-z0-9_]+)\s+(0x[0-9a-f]+)\s`)
	gdbMapLine  = regexp.MustCompile(`(?m)^\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+0x[0-9a-f]+\s+(0x[0-9a-f]+)\s+(/\S.*)$`)
	gdbValue    = regexp.MustCompile(`(?m)^\$(\d+) = (.*)$`)
)

// runGDBCrash asks gdb for the instruction, registers, mappings, fault
// address and abort message of a core, plus one extra print.
func runGDBCrash(t *testing.T, ref gdbRef, exe, core, extraPrint string) *gdbCrash {
	t.Helper()
	gdb := testenv.NeedTool(t, ref.tool)
	args := append([]string{"-batch", "-nx"}, ref.extra...)
	args = append(args, "-ex", "set pagination off", "-ex", "set width 0",
		// x/i prints nothing after "=> 0x...:" when it cannot read
		// the pc (the error goes to stderr): end its line.
		"-ex", "x/i $pc", "-ex", "echo \\n", "-ex", "info registers", "-ex", "info proc mappings",
		"-ex", "echo @@si_addr\\n", "-ex", "print $_siginfo._sifields._sigfault.si_addr",
		// With glibc's debug info (libc6-dbg) gdb knows struct
		// abort_msg_s; without it (i386), the text is 4 bytes in.
		"-ex", "echo @@abort_msg\\n", "-ex", "print __abort_msg->msg",
		"-ex", "echo @@abort_msg\\n", "-ex", "print (char *)(*(char **)&__abort_msg + 4)")
	if extraPrint != "" {
		args = append(args, "-ex", "echo @@extra\\n", "-ex", "print "+extraPrint)
	}
	out := runTool(t, gdb, append(args, exe, core)...)
	g := &gdbCrash{regs: map[string]string{}}
	if m := gdbInsnLine.FindStringSubmatch(out); m != nil {
		g.insnRaw = m[0]
		if strings.TrimSpace(m[2]) != "" {
			g.pc, g.insn = m[1], normInsn(m[2])
		}
	} else {
		g.insnRaw = "(no x/i line)"
	}
	for _, m := range gdbRegLine.FindAllStringSubmatch(out, -1) {
		g.regs[m[1]] = m[2]
	}
	gdbRegTable(out, g.regs)
	for _, m := range gdbMapLine.FindAllStringSubmatch(out, -1) {
		g.maps = append(g.maps, gdbMapping{m[1], m[2], m[3], strings.TrimSpace(m[4])})
	}
	// Each print follows its marker; a print gdb refuses prints no value.
	for _, sec := range strings.Split(out, "@@")[1:] {
		what, rest, _ := strings.Cut(sec, "\n")
		m := gdbValue.FindStringSubmatch(rest)
		if m == nil {
			continue
		}
		v := m[2]
		switch what {
		case "si_addr": // "(void *) 0x18" or "(void *) 0x55... <fn+4>"
			if f := strings.Fields(strings.TrimPrefix(v, "(void *) ")); len(f) > 0 {
				g.siAddr = f[0]
			}
		case "abort_msg": // 0x7f... "free(): ...\n"
			if i := strings.IndexByte(v, '"'); i >= 0 && g.abortMsg == "" {
				if s, err := strconv.Unquote(v[i:]); err == nil {
					g.abortMsg = strings.TrimRight(s, "\n")
				}
			}
		case "extra":
			g.print = v
		}
	}
	if len(g.regs) == 0 {
		t.Fatalf("gdb printed no registers:\n%s", out)
	}
	return g
}

// gdbRegTable adds to regs the registers of gdb's tabular info registers
// (MIPS): a line of names, then a line of their values in hex without
// 0x, after an "R<n>" label on the general registers' lines.
func gdbRegTable(out string, regs map[string]string) {
	lines := strings.Split(out, "\n")
	for i := 0; i+1 < len(lines); i++ {
		names, vals := strings.Fields(lines[i]), strings.Fields(lines[i+1])
		if len(vals) > 0 && strings.HasPrefix(vals[0], "R") {
			vals = vals[1:]
		}
		if len(names) == 0 || len(names) != len(vals) || !gdbRegNames.MatchString(lines[i]) {
			continue
		}
		for j, v := range vals {
			if n, err := strconv.ParseUint(v, 16, 64); err == nil {
				regs[names[j]] = fmt.Sprintf("%#x", n)
			}
		}
		i++
	}
}

var gdbRegNames = regexp.MustCompile(`^(\s+[a-z][a-z0-9]*)+\s*$`)

// normInsn makes gdb's and coreunwind's instruction text comparable:
// one space between fields, gdb's "# 0x... <sym>" comment and a branch
// target's " <sym>" removed.
func normInsn(s string) string {
	if i := strings.Index(s, "#"); i >= 0 {
		s = s[:i]
	}
	s = gdbSymbolNote.ReplaceAllString(s, "")
	// aarch64: gdb writes "[x0, #24]", arm64asm "[x0,#24]".
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), ", ", ",")
}

var gdbSymbolNote = regexp.MustCompile(` <[^>]*>`)

type loadSegment struct{ start, end, perms string }

// readelfLoads lists the core's PT_LOAD segments with their permissions.
func readelfLoads(t *testing.T, core string) []loadSegment {
	t.Helper()
	out := runTool(t, testenv.NeedTool(t, "readelf"), "-lW", core)
	var segs []loadSegment
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 7 || f[0] != "LOAD" {
			continue
		}
		start, err1 := strconv.ParseUint(f[2], 0, 64)
		size, err2 := strconv.ParseUint(f[5], 0, 64)
		if err1 != nil || err2 != nil || size == 0 {
			continue
		}
		flg := strings.Join(f[6:len(f)-1], "")
		perms := []byte("---")
		for i, c := range "RWE" {
			if strings.ContainsRune(flg, c) {
				perms[i] = "rwx"[i]
			}
		}
		segs = append(segs, loadSegment{fmt.Sprintf("%#x", start), fmt.Sprintf("%#x", start+size), string(perms)})
	}
	return segs
}

// TestFrameRegisters: the registers the report lists for each frame, and
// how it recovered them, against gdb's info registers in that frame.
func TestFrameRegisters(t *testing.T) {
	t.Parallel()
	exe := buildProgram(t, "crashkinds")
	c := crashProgram(t, exe, nil, "null-write")
	_, r := unwindJSON(t, []string{"--threads", "crashed"}, c.Core, c.Exe)
	var rep struct {
		Threads []struct {
			Frames []struct {
				Index     int        `json:"index"`
				Function  *string    `json:"function"`
				Inlined   bool       `json:"inlined"`
				Registers []regEntry `json:"registers"`
			} `json:"frames"`
		} `json:"threads"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil || len(rep.Threads) != 1 {
		t.Fatalf("%v: %d threads", err, len(rep.Threads))
	}
	frames := rep.Threads[0].Frames
	const n = 3 // write_count, main, __libc_start_call_main
	if len(frames) < n {
		t.Fatalf("%d frames", len(frames))
	}
	args := []string{"-batch", "-nx", "-ex", "set pagination off", "-ex", "set width 0",
		"-ex", "set backtrace past-main on", "-ex", "set backtrace past-entry on"}
	for i := range n {
		args = append(args, "-ex", fmt.Sprintf("frame %d", i), "-ex", fmt.Sprintf("echo --frame %d--\\n", i), "-ex", "info registers")
	}
	out := runTool(t, testenv.NeedTool(t, "gdb"), append(args, c.Exe, c.Core)...)
	sections := strings.Split(out, "--frame ")
	if len(sections) != n+1 {
		t.Fatalf("gdb printed %d frame sections:\n%s", len(sections)-1, out)
	}
	hows := map[string]bool{"context": true, "same": true, "memory": true, "register": true, "value": true}
	for i := range n {
		gdbRegs := map[string]string{}
		for _, m := range gdbRegLine.FindAllStringSubmatch(sections[i+1], -1) {
			gdbRegs[m[1]] = m[2]
		}
		f := frames[i]
		if f.Inlined || len(f.Registers) == 0 {
			t.Fatalf("frame %d (%v): no registers", i, strptr(f.Function))
		}
		for _, reg := range f.Registers {
			if !hows[reg.How] || (i == 0) != (reg.How == "context") {
				t.Errorf("frame %d register %s: how %q", i, reg.Name, reg.How)
			}
			if gv, ok := gdbRegs[reg.Name]; !ok || gv != reg.Value {
				t.Errorf("frame %d (%s) register %s = %s (%s); gdb: %q", i, strptr(f.Function), reg.Name, reg.Value, reg.How, gv)
			}
		}
		for _, must := range []string{"rip", "rsp"} {
			if !slices.ContainsFunc(f.Registers, func(r regEntry) bool { return r.Name == must }) {
				t.Errorf("frame %d lacks %s", i, must)
			}
		}
	}
}

// TestTriageByCrashAnalysis: triage buckets stack overflows by their
// recursion cycle (the main thread's and a thread's, reached from
// different entry points, are one bucket) and failed assertions by their
// message.
func TestTriageByCrashAnalysis(t *testing.T) {
	t.Parallel()
	exe := buildProgram(t, "crashkinds")
	dir := t.TempDir()
	for i, kind := range []string{"stack-overflow", "thread-overflow", "assert"} {
		c := crashProgram(t, exe, nil, kind)
		b, err := os.ReadFile(c.Core)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("core.%d", i)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := runCoreunwind(t, "triage", "--format", "json", "--binaries", filepath.Dir(exe), dir)
	if r.Code != exitOK {
		t.Fatalf("triage: exit %d\n%s", r.Code, r.Stderr)
	}
	var sum struct {
		Buckets []struct {
			Signature string   `json:"signature"`
			Cores     []string `json:"cores"`
		} `json:"buckets"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &sum); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, b := range sum.Buckets {
		got[b.Signature] = len(b.Cores)
	}
	want := map[string]int{
		"stack overflow: down_a -> down_b":                                         2,
		"assertion: crashkinds.c: check_balance: Assertion `balance >= 0' failed.": 1,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("buckets %v, want %v", got, want)
	}
}

package crashinfo

import (
	"fmt"

	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/unwind"
)

// si_code values of SIGSEGV and SIGBUS (asm-generic/siginfo.h).
const (
	segvMapErr = 1
	segvAccErr = 2
	busAdrAln  = 1
	busAdrErr  = 2
	siKernel   = 0x80
)

// stackGuardGap is how far below a stack the kernel keeps other mappings
// away (stack_guard_gap, 256 pages by default): an access there is the
// stack growing into its limit.
const stackGuardGap = 1 << 20

// nearSP bounds how far below the stack pointer a stack access reaches
// (the largest frame a prologue probes at once is a page; alloca and
// large locals go further, but not by more than this).
const nearSP = 64 << 10

// memoryFault explains SIGSEGV and SIGBUS.
func (a *analysis) memoryFault() {
	s := a.in.Signal
	if s.Name == "SIGSEGV" && s.Code == siKernel && a.insn != nil && a.insn.HasMemAddr && a.insn.Mem != unwind.MemNone {
		// A general-protection fault: the kernel reports si_addr 0.
		if d, ok := a.in.Arch.(unwind.InsnDecoder); ok && !d.CanonicalAddr(a.insn.MemAddr) {
			a.setAccess(a.insn.Mem.String(), a.insn.MemAddr)
			a.c.Kind = "non_canonical_address"
			a.c.Summary = fmt.Sprintf("%s of non-canonical address %#x%s: no valid pointer holds it",
				verb(a.insn.Mem), a.insn.MemAddr, a.operandRegs())
			return
		}
	}
	if !s.HasAddr && a.hasPC && s.Name == "SIGSEGV" && a.insn == nil && a.complete() {
		// No siginfo (qemu-user's cores): a pc outside every mapping
		// or in one without execute permission still proves it, as the
		// thread cannot have run there.
		if m := a.mappingAt(a.pc); m == nil || m.Perms[2] == '-' {
			a.execFault(a.pc)
			return
		}
	}
	addr, code, fromInsn := s.Addr, s.Code, false
	if !s.HasAddr && s.Name == "SIGSEGV" {
		addr, code, fromInsn = a.faultFromInsn()
	} else if !s.HasAddr {
		return
	}
	if s.HasAddr && s.Name == "SIGSEGV" {
		addr = a.addrInFaultPage(addr)
	}
	if code <= 0 || code >= siKernel {
		return
	}
	if fromInsn {
		defer func() {
			if a.c.Summary != "" {
				a.c.Summary += " (from the instruction; the core has no siginfo)"
			}
		}()
	}
	if a.hasPC && a.pc == addr && s.Name == "SIGSEGV" {
		a.execFault(addr)
		return
	}
	if s.Name == "SIGBUS" {
		a.busFault(addr)
		return
	}
	access := "access"
	if a.insn != nil && a.accessIsFault(addr) {
		access = verb(a.insn.Mem)
		a.setAccess(a.insn.Mem.String(), addr)
	}
	if a.stackOverflow(addr, access) {
		return
	}
	if a.nullPointer(addr, access) {
		return
	}
	m := a.mappingAt(addr)
	switch {
	case m != nil && code == segvAccErr && (a.insn != nil && a.accessIsFault(addr) &&
		(a.insn.Mem == unwind.MemWrite || a.insn.Mem == unwind.MemReadWrite)) && m.Perms[1] == '-':
		a.c.Kind = "write_to_read_only"
		a.c.Summary = fmt.Sprintf("write to read-only memory at %#x, in the %s", addr, describe(m, addr))
		if sec := a.section(m, addr); sec != "" {
			a.c.Summary = fmt.Sprintf("write to read-only memory at %#x, in %s of %s (file offset %#x)", addr, sec, *m.Path, uint64(m.Offset)+addr-uint64(m.Start))
			if sec == ".rodata" {
				a.c.Summary += ": a string literal or other constant written through a pointer"
			}
		}
	case m != nil && code == segvAccErr && m.Perms == "---":
		a.c.Kind = "inaccessible"
		a.c.Summary = fmt.Sprintf("%s of %#x in the %s, which allows no access", access, addr, describe(m, addr))
	case m == nil && code == segvMapErr && a.complete():
		a.c.Kind = "unmapped"
		a.c.Summary = fmt.Sprintf("%s of address %#x, outside every mapping%s", access, addr, a.operandRegs())
	}
}

// accessIsFault reports whether the decoded instruction's memory operand
// is what faulted: its computed address is the fault address, or just
// below it (an access that crosses into the next page faults there).
func (a *analysis) accessIsFault(addr uint64) bool {
	in := a.insn
	return in != nil && in.Mem != unwind.MemNone && in.HasMemAddr && addr >= in.MemAddr && addr-in.MemAddr < 64
}

func (a *analysis) setAccess(kind string, addr uint64) {
	a.c.Access = &report.Access{Kind: kind, Address: report.Hex(addr), Mapping: a.mappingAt(addr)}
}

func verb(m unwind.MemAccess) string {
	switch m {
	case unwind.MemRead:
		return "read"
	case unwind.MemWrite:
		return "write"
	case unwind.MemReadWrite:
		return "read-modify-write"
	}
	return "access"
}

// operandRegs lists the registers the memory operand was computed from:
// " (rax = 0x0, rcx = 0x10)".
func (a *analysis) operandRegs() string {
	if a.insn == nil {
		return ""
	}
	return a.regList([]int{a.insn.MemBase, a.insn.MemIndex})
}

// regList lists registers with their values, but the pc's:
// " (rax = 0x0, rcx = 0x10)"; "" when none is known.
func (a *analysis) regList(regs []int) string {
	out := ""
	for _, r := range regs {
		if r < 0 {
			continue
		}
		v, ok := a.reg(r)
		if !ok || r == a.in.Arch.PCReg() {
			continue
		}
		if out != "" {
			out += ", "
		}
		out += fmt.Sprintf("%s = %#x", a.regName(r), v)
	}
	if out == "" {
		return ""
	}
	return " (" + out + ")"
}

// minMapAddr is the lowest address Linux lets a process map by default
// (vm.mmap_min_addr: 65536 on x86 and arm64, 32768 on some arm
// kernels): an unmapped address below it is a NULL pointer plus an
// offset, as no object can be there.
const minMapAddr = 0x10000

// insnRegs lists the registers the instruction reads: " (r9 = 0x0)".
func (a *analysis) insnRegs() string {
	return a.regList(a.insn.Regs)
}

// nullPointer: the operand's base register held 0 (and its index, if
// any, added nothing), so the address is the displacement: a field of a
// NULL pointer. Or the address is below every address a process maps by
// default: a NULL pointer the compiler folded into a constant address
// (movl $0x0,0x0), or one plus an offset the registers do not show.
func (a *analysis) nullPointer(addr uint64, access string) bool {
	in := a.insn
	onInsn := in != nil && a.accessIsFault(addr)
	switch {
	case onInsn && a.nullBase():
		a.c.Kind = "null_pointer"
		if in.MemDisp == 0 {
			a.c.Summary = fmt.Sprintf("%s through a NULL pointer%s", access, a.operandRegs())
		} else {
			a.c.Summary = fmt.Sprintf("%s of field at offset %#x of a NULL pointer%s", access, uint64(in.MemDisp), a.operandRegs())
		}
	case addr >= minMapAddr || a.mappingAt(addr) != nil || !a.complete():
		return false
	case onInsn && in.MemBase < 0 && in.MemIndex < 0:
		a.c.Kind = "null_pointer"
		if in.MemAddr == 0 {
			a.c.Summary = fmt.Sprintf("%s through a NULL pointer (the instruction's constant address 0x0)", access)
		} else {
			a.c.Summary = fmt.Sprintf("%s of field at offset %#x of a NULL pointer (the instruction's constant address %#x)", access, in.MemAddr, in.MemAddr)
		}
	default:
		a.c.Kind = "null_pointer"
		a.c.Summary = fmt.Sprintf("%s of address %#x, at offset %#x of a NULL pointer: nothing is mapped below %#x (vm.mmap_min_addr)%s",
			access, addr, addr, uint64(minMapAddr), a.operandRegs())
	}
	if onInsn && addr != in.MemAddr {
		a.c.Details = append(a.c.Details, fmt.Sprintf("the access starts at %#x and faulted at %#x", in.MemAddr, addr))
	}
	return true
}

// nullBase reports whether the instruction's memory operand is a
// displacement from a base register holding 0 (with an index, if any,
// adding nothing).
func (a *analysis) nullBase() bool {
	in := a.insn
	if in.MemBase < 0 || in.MemBase == a.in.Arch.PCReg() {
		return false
	}
	if base, ok := a.reg(in.MemBase); !ok || base != 0 {
		return false
	}
	if in.MemIndex >= 0 {
		if v, ok := a.reg(in.MemIndex); !ok || v != 0 {
			return false
		}
	}
	return true
}

// faultFromInsn proves a SIGSEGV's fault address and si_code from the
// decoded instruction when the core has no siginfo (qemu-user's): its
// computed memory operand is below every address a process maps
// (SEGV_MAPERR) or in a mapping that forbids the access (SEGV_ACCERR).
// Any other unmapped address proves nothing: a core a debugger wrote
// (gcore, riscv64's in the tests) may leave mappings out. ok false when
// it proves nothing.
func (a *analysis) faultFromInsn() (addr uint64, code int, ok bool) {
	in := a.insn
	if in == nil || in.Mem == unwind.MemNone || !in.HasMemAddr || !a.complete() {
		return 0, 0, false
	}
	addr = in.MemAddr
	m := a.mappingAt(addr)
	switch {
	case m == nil && addr < minMapAddr:
		return addr, segvMapErr, true
	case m == nil:
		return 0, 0, false
	case m.Perms[0] == '-' && in.Mem != unwind.MemWrite,
		m.Perms[1] == '-' && in.Mem != unwind.MemRead:
		return addr, segvAccErr, true
	}
	return 0, 0, false
}

// stackOverflow: the fault is near the stack pointer, just below the
// mapping that holds the thread's stack (the one its frames' stack
// pointers are in): in the gap the kernel keeps below a growing stack,
// or in a thread stack's guard page. The stack pointer itself may
// already be below the stack: a prologue's sub does not fault, the
// first store does.
func (a *analysis) stackOverflow(addr uint64, access string) bool {
	sp, ok := a.reg(a.in.Arch.SPReg())
	if !ok || max(addr, sp)-min(addr, sp) > nearSP {
		return false
	}
	stack := a.mappingAbove(addr)
	if stack == nil || !a.holdsFrames(stack) {
		return false
	}
	below := a.mappingAt(addr)
	switch {
	case below == nil && uint64(stack.Start)-addr <= stackGuardGap && a.complete():
		// The main thread's stack grew down to its limit: the kernel
		// refuses the next page.
	case below != nil && below.Perms == "---" && uint64(below.End) == uint64(stack.Start):
		// A thread stack's guard page (pthread's PROT_NONE mapping).
	default:
		return false
	}
	a.c.Kind = "stack_overflow"
	where := fmt.Sprintf("%s of %#x, %#x bytes below the stack %#x-%#x", access, addr, uint64(stack.Start)-addr, uint64(stack.Start), uint64(stack.End))
	if below != nil {
		where += ", in its guard page"
	}
	a.c.Summary = "stack overflow: " + where
	if cyc := RecursionCycle(a.in.Frames); cyc != nil {
		a.c.Recursion = cyc.Functions
		a.c.Summary = fmt.Sprintf("stack overflow: recursion %s, %d turns in the frames unwound (%s)", cyc.String(), cyc.Repeats, where)
	}
	return true
}

// mappingAbove returns the first mapping that starts above addr.
func (a *analysis) mappingAbove(addr uint64) *report.Mapping {
	for i := range a.in.Mappings {
		if m := &a.in.Mappings[i]; uint64(m.Start) > addr && m.Perms != "" {
			return m
		}
	}
	return nil
}

// holdsFrames reports whether a frame's stack pointer (past frame 0's,
// which may already have left the stack) lies in m.
func (a *analysis) holdsFrames(m *report.Mapping) bool {
	for i, f := range a.in.Frames {
		if i > 0 && f.SP != nil && *f.SP >= m.Start && *f.SP < m.End {
			return true
		}
	}
	return false
}

// execFault: the pc itself faulted, the thread jumped where there is no
// code. When the caller's return address follows a call instruction,
// that call is the one that went there.
func (a *analysis) execFault(addr uint64) {
	a.c.Access = &report.Access{Kind: "execute", Address: report.Hex(addr), Mapping: a.mappingAt(addr)}
	how := "a call or jump through a bad function pointer"
	if call, fn := a.callerCall(); call != "" {
		how = fmt.Sprintf("the call `%s in %s (frame #%d) went there", call, fn, a.frameNo(1))
	}
	m := a.mappingAt(addr)
	switch {
	case m == nil && addr == 0 && a.complete():
		a.c.Kind = "bad_jump"
		a.c.Summary = fmt.Sprintf("execution of address 0x0 (a NULL function pointer), outside every mapping: %s", how)
	case m == nil && a.complete():
		a.c.Kind = "bad_jump"
		a.c.Summary = fmt.Sprintf("execution of address %#x, outside every mapping: %s", addr, how)
	case m != nil && m.Perms[2] == '-':
		a.c.Kind = "exec_non_executable"
		where := "the " + describe(m, addr)
		if sec := a.section(m, addr); sec != "" {
			where = fmt.Sprintf("%s of %s (file offset %#x)", sec, *m.Path, uint64(m.Offset)+addr-uint64(m.Start))
		}
		a.c.Summary = fmt.Sprintf("execution of non-executable memory at %#x, in %s: %s", addr, where, how)
	}
}

// callerCall decodes the instruction that ends at frame 1's return
// address (before its delay slot, on MIPS), and returns its text and frame 1's function when it is a
// call: trying each length, as a return address is only known to follow
// a call.
func (a *analysis) callerCall() (text, fn string) {
	d, ok := a.in.Arch.(unwind.InsnDecoder)
	if !ok || len(a.in.Frames) < 2 {
		return "", ""
	}
	f := a.in.Frames[len(inlinedPrefix(a.in.Frames))+1:]
	if len(f) == 0 || f[0].ExactPC || f[0].Function == nil {
		return "", ""
	}
	ret := uint64(f[0].PC)
	if ds, ok := a.in.Arch.(unwind.DelaySlotArch); ok && ret >= uint64(ds.DelaySlot()) {
		ret -= uint64(ds.DelaySlot())
	}
	reg := a.callerRegs(&f[0])
	for n := 1; n <= d.MaxInsnLen() && uint64(n) <= ret; n++ {
		code := a.readCode(ret-uint64(n), n)
		if len(code) != n {
			continue
		}
		in, err := d.DecodeInsn(code, ret-uint64(n), reg)
		if err != nil || in.Len != n || in.Class != unwind.InsnCall {
			continue
		}
		if why := a.callTarget(&in); why != "" {
			return in.Text + "` (" + why + ")", *f[0].Function
		}
	}
	return "", ""
}

// callerRegs are the registers a call in frame f was decoded with:
// frame 0's (the target never ran, so they are the call's), except
// those the unwinder recovered for f itself, which are the caller's own
// where they differ: arm's cpsr, whose T bit says the call was Thumb
// code when the target is ARM code.
func (a *analysis) callerRegs(f *report.Frame) func(int) (uint64, bool) {
	byName := map[string]uint64{}
	for _, r := range f.Registers {
		byName[r.Name] = uint64(r.Value)
	}
	return func(r int) (uint64, bool) {
		if r != a.in.Arch.PCReg() {
			if v, ok := byName[a.regName(r)]; ok {
				return v, true
			}
		}
		return a.reg(r)
	}
}

// callTarget shows that an indirect call went to the pc: the pointer it
// read from memory, or the register it called through, holds it (frame
// 0's registers are the call's: the target never ran). "" when neither
// does.
func (a *analysis) callTarget(in *unwind.Insn) string {
	if in.Mem == unwind.MemRead && in.HasMemAddr {
		if p, err := readPtr(a.in.Mem, in.MemAddr); err == nil && p == a.pc {
			return fmt.Sprintf("the pointer at %#x is %#x", in.MemAddr, p)
		}
		return ""
	}
	for _, r := range in.Regs {
		if r == a.in.Arch.SPReg() || r == a.in.Arch.PCReg() {
			continue
		}
		if v, ok := a.reg(r); ok && v == a.pc {
			return fmt.Sprintf("%s = %#x", a.regName(r), v)
		}
	}
	return ""
}

// busFault explains SIGBUS: BUS_ADRERR on a file mapping is a page past
// the end of the file (mmap(2): "access to a portion of the buffer that
// does not correspond to the file"). x86's alignment check (#AC, with
// EFLAGS.AC set) reports BUS_ADRALN with si_addr 0: the address is then
// the faulting instruction's computed operand, when it has one.
func (a *analysis) busFault(addr uint64) {
	if a.in.Signal.Code == busAdrAln && addr == 0 && a.insn != nil && a.insn.Mem != unwind.MemNone && a.insn.HasMemAddr {
		addr = a.insn.MemAddr
	}
	access := "access"
	if a.accessIsFault(addr) {
		access = verb(a.insn.Mem)
		a.setAccess(a.insn.Mem.String(), addr)
	}
	m := a.mappingAt(addr)
	switch {
	case a.in.Signal.Code == busAdrErr && m != nil && m.Path != nil:
		off := uint64(m.Offset) + addr - uint64(m.Start)
		a.c.Kind = "beyond_end_of_file"
		a.c.Summary = fmt.Sprintf("%s of %#x at offset %#x of the mapped file %s: that page lies past the end of the file (the file is shorter than its mapping)", access, addr, off, *m.Path)
	case a.in.Signal.Code == busAdrAln:
		a.c.Kind = "misaligned"
		a.c.Summary = fmt.Sprintf("misaligned %s of %#x%s", access, addr, a.operandRegs())
	}
}

// section names the section of a file mapping's file that holds addr.
func (a *analysis) section(m *report.Mapping, addr uint64) string {
	if m.Path == nil || a.in.Section == nil {
		return ""
	}
	return a.in.Section(*m.Path, uint64(m.Offset)+addr-uint64(m.Start))
}

// addrInFaultPage is the address of a fault the arch reports by its page
// only (unwind.FaultPageArch): the instruction's operand when it lies in
// that page, else the page.
func (a *analysis) addrInFaultPage(page uint64) uint64 {
	fp, ok := a.in.Arch.(unwind.FaultPageArch)
	if !ok || a.insn == nil || !a.insn.HasMemAddr || a.insn.Mem == unwind.MemNone {
		return page
	}
	size := fp.FaultPageSize()
	if page%size != 0 || a.insn.MemAddr&^(size-1) != page {
		return page
	}
	a.c.Details = append(a.c.Details, fmt.Sprintf("%s reports a fault's page only (si_addr %#x): the address is the instruction's operand", a.in.Arch.Name(), page))
	return a.insn.MemAddr
}

package minidump

import (
	"fmt"
	"sync"
)

// Context is a thread's saved CPU context (MDRawContextAMD64,
// MDRawContextX86, MDRawContextARM, MDRawContextARM64 and its older
// layout), kept as the dump's bytes and decoded through the CPU's
// register table.
type Context struct {
	CPU CPU
	// Flags is context_flags: which parts of the context are valid.
	Flags uint64
	Raw   []byte
	regs  *cpuRegs
}

// Register is one named register of a context.
type Register struct {
	Name  string
	Value uint64
}

// regSlot is a register's place in a context: offset and size in bytes.
type regSlot struct {
	name string
	off  int
	size int
}

// cpuRegs is a context layout: its size, where context_flags is, the
// registers in minidump_stackwalk's order, and which are the pc and sp.
type cpuRegs struct {
	size      int
	flagsSize int
	regs      []regSlot
	pc, sp    string
}

func slots64(names []string, first int) []regSlot {
	out := make([]regSlot, len(names))
	for i, n := range names {
		out[i] = regSlot{n, first + 8*i, 8}
	}
	return out
}

func slots32(names []string, first int) []regSlot {
	out := make([]regSlot, len(names))
	for i, n := range names {
		out[i] = regSlot{n, first + 4*i, 4}
	}
	return out
}

// arm64Names are MDRawContextARM64's iregs, in order.
var arm64Names = []string{"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
	"x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21", "x22",
	"x23", "x24", "x25", "x26", "x27", "x28", "fp", "lr", "sp", "pc"}

// Context sizes that guessCPU and tests need without the layouts.
const (
	amd64ContextSize    = 1232
	arm64OldContextSize = 796
)

// contextLayouts are the context layouts by CPU, built by the first
// context read rather than by every process at start (most read no
// minidump).
var contextLayouts = sync.OnceValue(func() map[CPU]*cpuRegs {
	arm64 := slots64(arm64Names, 8)
	return map[CPU]*cpuRegs{
		// MDRawContextAMD64: the integer registers from Rax at 120 to
		// Rip at 248, and EFlags at 68.
		CPUAMD64: {size: amd64ContextSize, flagsSize: 4, pc: "rip", sp: "rsp", regs: append(
			slots64([]string{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
				"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"}, 120),
			regSlot{"eflags", 68, 4}, regSlot{"cs", 56, 2}, regSlot{"ds", 58, 2}, regSlot{"es", 60, 2},
			regSlot{"fs", 62, 2}, regSlot{"gs", 64, 2}, regSlot{"ss", 66, 2})},
		// MDRawContextX86: from gs at 140 to ss at 200.
		CPUX86: {size: 716, flagsSize: 4, pc: "eip", sp: "esp", regs: slots32([]string{
			"gs", "fs", "es", "ds", "edi", "esi", "ebx", "edx", "ecx", "eax",
			"ebp", "eip", "cs", "eflags", "esp", "ss"}, 140)},
		// MDRawContextARM: iregs[16] at 4, cpsr at 68.
		CPUARM: {size: 368, flagsSize: 4, pc: "pc", sp: "sp", regs: slots32([]string{
			"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12",
			"sp", "lr", "pc", "cpsr"}, 4)},
		// MDRawContextARM64 (context_flags, cpsr, iregs[33]).
		CPUARM64: {size: 912, flagsSize: 4, pc: "pc", sp: "sp",
			regs: append(arm64[:len(arm64):len(arm64)], regSlot{"cpsr", 4, 4})},
		// MDRawContextARM64_Old (64-bit context_flags, iregs[33], cpsr;
		// packed to 4 bytes).
		CPUARM64Old: {size: arm64OldContextSize, flagsSize: 8, pc: "pc", sp: "sp",
			regs: append(arm64[:len(arm64):len(arm64)], regSlot{"cpsr", 272, 4})},
	}
})

// layoutFor returns the context layout of cpu, nil when this package
// does not read its contexts.
func layoutFor(cpu CPU) *cpuRegs {
	return contextLayouts()[cpu]
}

// Context flags naming the CPU, for dumps without system information.
const (
	contextX86      = 0x00010000
	contextAMD64    = 0x00100000
	contextARM      = 0x40000000
	contextARM64    = 0x00400000
	contextARM64Old = 0x80000000
)

// guessCPU names the CPU of a context from its flags, for a dump without
// a system information stream.
func guessCPU(raw []byte) CPU {
	if len(raw) < 4 {
		return CPUUnknown
	}
	f := le.Uint32(raw)
	switch {
	case len(raw) >= 8 && le.Uint64(raw)&0xffffffff00000000 == 0 && f&contextARM64Old != 0 && len(raw) == arm64OldContextSize:
		return CPUARM64Old
	case f&contextAMD64 != 0:
		return CPUAMD64
	case f&contextARM64 != 0:
		return CPUARM64
	case f&contextARM != 0:
		return CPUARM
	case f&contextX86 != 0:
		return CPUX86
	}
	return CPUUnknown
}

// parseContext checks raw against cpu's layout. Breakpad writes the whole
// structure; a shorter one that still holds every integer register is
// accepted (some writers leave out the vector state).
func parseContext(cpu CPU, raw []byte, off uint64) (Context, error) {
	c := Context{CPU: cpu, Raw: raw}
	l := layoutFor(cpu)
	if l == nil {
		return c, formatErr(off, "no context layout for CPU %v", cpu)
	}
	need := 0
	for _, r := range l.regs {
		need = max(need, r.off+r.size)
	}
	if len(raw) < need {
		return c, formatErr(off, "%v context of %d bytes, want %d", cpu, len(raw), l.size)
	}
	c.regs = l
	if l.flagsSize == 8 {
		c.Flags = le.Uint64(raw)
	} else {
		c.Flags = uint64(le.Uint32(raw))
	}
	return c, nil
}

// Valid reports whether the context was decoded (its CPU has a layout and
// the bytes hold every register).
func (c *Context) Valid() bool { return c.regs != nil }

// Registers returns the context's integer registers by name, in
// minidump_stackwalk's order.
func (c *Context) Registers() []Register {
	if c.regs == nil {
		return nil
	}
	out := make([]Register, len(c.regs.regs))
	for i, r := range c.regs.regs {
		out[i] = Register{Name: r.name, Value: c.slot(r)}
	}
	return out
}

// Reg returns the register named name.
func (c *Context) Reg(name string) (uint64, bool) {
	if c.regs == nil {
		return 0, false
	}
	for _, r := range c.regs.regs {
		if r.name == name {
			return c.slot(r), true
		}
	}
	return 0, false
}

func (c *Context) slot(r regSlot) uint64 {
	switch r.size {
	case 8:
		return le.Uint64(c.Raw[r.off:])
	case 4:
		return uint64(le.Uint32(c.Raw[r.off:]))
	default:
		return uint64(le.Uint16(c.Raw[r.off:]))
	}
}

// PC is the instruction pointer.
func (c *Context) PC() uint64 {
	v, _ := c.Reg(c.name(func(l *cpuRegs) string { return l.pc }))
	return v
}

// SP is the stack pointer.
func (c *Context) SP() uint64 {
	v, _ := c.Reg(c.name(func(l *cpuRegs) string { return l.sp }))
	return v
}

func (c *Context) name(f func(*cpuRegs) string) string {
	if c.regs == nil {
		return ""
	}
	return f(c.regs)
}

// contextAt reads the context a location names, for cpu (guessed from
// the flags when the dump has no system information).
func (d *Dump) contextAt(loc location) (Context, error) {
	raw, err := d.data.bytes(loc)
	if err != nil {
		return Context{}, fmt.Errorf("context: %w", err)
	}
	cpu := guessCPU(raw)
	if d.System != nil {
		cpu = d.System.CPU
	}
	return parseContext(cpu, raw, uint64(loc.RVA))
}

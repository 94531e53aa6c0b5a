package minidump

import (
	"debug/elf"
	"fmt"
	"sync"
)

// The Linux kernel's elf_gregset_t (NT_PRSTATUS's pr_reg) of each CPU,
// slot by slot, as the names of the context registers that fill it: a
// minidump thread becomes a core thread whose registers the arch
// packages decode as they decode a core's. Breakpad fills the context
// from these very structures (user_regs_struct), so nothing is lost but
// what the context lacks (orig_rax, fs_base): those slots are zero. Built
// by the first use, not at every start.
var gregsets = sync.OnceValue(func() map[CPU]gregset {
	return map[CPU]gregset{
		// asm/user_64.h: r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx
		// rsi rdi orig_rax rip cs eflags rsp ss fs_base gs_base ds es fs gs.
		CPUAMD64: {8, []string{"r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8",
			"rax", "rcx", "rdx", "rsi", "rdi", "", "rip", "cs", "eflags", "rsp", "ss", "", "", "ds", "es", "fs", "gs"}},
		// asm/user_32.h: ebx ecx edx esi edi ebp eax ds es fs gs orig_eax
		// eip cs eflags esp ss.
		CPUX86: {4, []string{"ebx", "ecx", "edx", "esi", "edi", "ebp", "eax", "ds", "es", "fs", "gs", "",
			"eip", "cs", "eflags", "esp", "ss"}},
		// asm/ptrace.h (arm): uregs[18], r0..r15, cpsr, orig_r0.
		CPUARM: {4, []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12",
			"sp", "lr", "pc", "cpsr", ""}},
		// asm/ptrace.h (arm64): user_pt_regs: regs[31], sp, pc, pstate.
		CPUARM64: {8, append(append([]string(nil), arm64Names[:31]...), "sp", "pc", "cpsr")},
	}
})

// gregset is a CPU's elf_gregset_t: slot size and the register in each
// slot ("" for none).
type gregset struct {
	slot  int
	names []string
}

// gregsetCPU maps Breakpad's older arm64 numbering to the one gregset.
func gregsetCPU(cpu CPU) CPU {
	if cpu == CPUARM64Old {
		return CPUARM64
	}
	return cpu
}

// GRegs returns the context as the Linux kernel's elf_gregset_t for its
// CPU, little-endian.
func (c *Context) GRegs() ([]byte, error) {
	g, ok := gregsets()[gregsetCPU(c.CPU)]
	if !ok || c.regs == nil {
		return nil, fmt.Errorf("no Linux register set for %v contexts", c.CPU)
	}
	out := make([]byte, g.slot*len(g.names))
	for i, n := range g.names {
		if n == "" {
			continue
		}
		v, _ := c.Reg(n)
		if g.slot == 8 {
			le.PutUint64(out[8*i:], v)
		} else {
			le.PutUint32(out[4*i:], uint32(v))
		}
	}
	return out, nil
}

// FPRegs returns the context's floating-point state as the kernel's
// NT_FPREGSET holds it where the layouts agree: amd64's FltSave is the
// fxsave area user_fpregs_struct is. nil for the other CPUs.
func (c *Context) FPRegs() []byte {
	const fltSave, fxsaveSize = 256, 512
	if c.CPU == CPUAMD64 && len(c.Raw) >= fltSave+fxsaveSize {
		return c.Raw[fltSave : fltSave+fxsaveSize]
	}
	return nil
}

// Machine is the ELF machine of a CPU, elf.EM_NONE for one without a
// Linux register set here.
func (c CPU) Machine() elf.Machine {
	switch gregsetCPU(c) {
	case CPUAMD64:
		return elf.EM_X86_64
	case CPUX86:
		return elf.EM_386
	case CPUARM:
		return elf.EM_ARM
	case CPUARM64:
		return elf.EM_AARCH64
	}
	return elf.EM_NONE
}

// PtrSize is the CPU's pointer size in bytes (0 when unknown).
func (c CPU) PtrSize() int {
	switch gregsetCPU(c) {
	case CPUAMD64, CPUARM64:
		return 8
	case CPUX86, CPUARM:
		return 4
	}
	return 0
}

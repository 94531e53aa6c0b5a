package x86_64

import (
	"bytes"
	"debug/elf"
	"testing"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// A thread stopped right after glibc's clone or clone3 system call (no
// CFI covers that code) is the outermost frame when the call returned 0
// to it, the child, as thread_start's CFI says; the parent, which the
// call returned a thread ID to, is not: it is left to the fallbacks
// (here they find nothing, as the stack is unreadable). The code and CFI
// are the system libc's: every "syscall; test %rax,%rax; jl; je" in its
// text (clone, clone3) is tried.
func TestCloneChildIsOutermost(t *testing.T) {
	const path = "/lib/x86_64-linux-gnu/libc.so.6"
	o, err := elfx.Open(path)
	if err != nil {
		testenv.Unavailable(t, path+": "+err.Error())
	}
	defer o.Close()
	text := o.ELF().Section(".text")
	if text == nil {
		t.Fatalf("%s has no .text", path)
	}
	code, err := text.Data()
	if err != nil {
		t.Fatal(err)
	}
	space := unwindtest.FileSpace(o.ELF())
	space.Procs = func(ip uint64) (*unwind.ProcInfo, error) {
		fde, err := o.FindFDE(ip)
		if err != nil {
			return nil, err
		}
		return &unwind.ProcInfo{StartIP: fde.Begin, EndIP: fde.End, Format: unwind.FormatCFI, Info: fde}, nil
	}
	prefix := cloneChildCode[:6] // syscall; test %rax,%rax; jl
	found := 0
	for off := 0; ; {
		i := bytes.Index(code[off:], prefix)
		if i < 0 {
			break
		}
		off += i + 1
		if code[off-1+7] != 0x74 { // je
			continue
		}
		pc := text.Addr + uint64(off-1) + 2
		if _, err := o.FindFDE(pc); err == nil {
			t.Errorf("pc %#x: CFI covers the code after clone's system call", pc)
			continue
		}
		found++
		for _, child := range []bool{true, false} {
			callee := unwind.NewFrame(NumRegs)
			callee.ExactPC = true
			callee.Set(RIP, pc, unwind.SaveLoc{Kind: unwind.LocValue})
			callee.Set(RSP, 0x7f0000001000, unwind.SaveLoc{Kind: unwind.LocValue})
			ax := uint64(4321) // the parent gets the child's thread ID
			if child {
				ax = 0
			}
			callee.Set(RAX, ax, unwind.SaveLoc{Kind: unwind.LocValue})
			caller := unwind.NewFrame(NumRegs)
			res, err := Arch{}.Step(space, unwind.NewCache(unwind.CacheNone), callee, caller)
			switch {
			case child && (res != unwind.StepEnd || err != nil):
				t.Errorf("pc %#x, child: %v, %v; want the outermost frame", pc, res, err)
			case !child && err == nil:
				t.Errorf("pc %#x, parent: %v without an error; want the fallbacks' error", pc, res)
			}
		}
	}
	if found < 2 {
		t.Errorf("found %d clone system calls in %s, want clone's and clone3's", found, path)
	}
	if o.ELF().Machine != elf.EM_X86_64 {
		t.Fatalf("%s is not x86-64", path)
	}
}

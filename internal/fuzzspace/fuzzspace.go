// Package fuzzspace is what the arch packages' fuzz targets share: the
// address space of their Step targets (a real program's text and CFI at
// their link addresses and a stack of fuzzer bytes, so that every path
// of a stepper, CFI rows and expressions, trampolines, frame pointers,
// scanning, runs on hostile stack contents and registers), the program,
// the walk, and the FrameFromThread body. Tests only.
package fuzzspace

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/unwind"
)

// Program is a static executable's text and unwind tables.
type Program struct {
	Obj      *elfx.Object
	Text     []byte
	TextAddr uint64
}

// Open reads the program at exe; it is closed when f's test ends.
func Open(f testing.TB, exe string) *Program {
	f.Helper()
	obj, err := elfx.Open(exe)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { obj.Close() })
	text := obj.ELF().Section(".text")
	if text == nil {
		f.Fatalf("%s has no .text", exe)
	}
	code, err := text.Data()
	if err != nil {
		f.Fatal(err)
	}
	return &Program{Obj: obj, Text: code, TextAddr: text.Addr}
}

// Source is the C program the Step fuzz targets build (-O2 -static, and
// the arch's flags): main calls mid, whose frame holds a buffer and calls
// snprintf (a libc frame below), then leaf, which dereferences its
// argument. Seeds put return addresses into mid on the stack.
const Source = `
#include <stdio.h>
__attribute__((noinline)) int leaf(int *p) { return *p; }
__attribute__((noinline)) int mid(int *p, int n) { char buf[64]; snprintf(buf, sizeof buf, "%d", n); return leaf(p) + buf[0]; }
int main(int argc, char **argv) { return mid(argc > 9 ? &argc : 0, argc); }
`

// Sym is the address of the program's symbol name, for seeds; a missing
// one fails f.
func (p *Program) Sym(f testing.TB, name string) uint64 {
	f.Helper()
	s, ok := p.Obj.LookupSymbol(name)
	if !ok {
		f.Fatalf("no symbol %s", name)
	}
	return s.Addr
}

// Space is the program with a stack at StackAddr.
type Space struct {
	*Program
	Stack     []byte
	StackAddr uint64
}

func (s *Space) ByteOrder() binary.ByteOrder { return s.Obj.ELF().ByteOrder }
func (s *Space) PtrSize() int                { return s.Obj.PtrSize() }

func (s *Space) ReadMem(addr uint64, p []byte) error {
	for _, r := range []struct {
		b    []byte
		base uint64
	}{{s.Text, s.TextAddr}, {s.Stack, s.StackAddr}} {
		if addr >= r.base && addr-r.base < uint64(len(r.b)) && uint64(len(p)) <= uint64(len(r.b))-(addr-r.base) {
			copy(p, r.b[addr-r.base:])
			return nil
		}
	}
	return unwind.ErrUnavailable
}

func (s *Space) FindProcInfo(ip uint64) (*unwind.ProcInfo, error) {
	fde, err := s.Obj.FindFDE(ip)
	if err != nil {
		return nil, unwind.ErrNoInfo
	}
	return &unwind.ProcInfo{StartIP: fde.Begin, EndIP: fde.End, Format: unwind.FormatCFI, Info: fde}, nil
}

func (s *Space) ProcName(uint64) (string, uint64, error) { return "", 0, unwind.ErrNoInfo }
func (s *Space) DynInfoListAddr() (uint64, error)        { return 0, unwind.ErrNoInfo }

func (s *Space) IsCode(addr uint64) bool {
	return addr >= s.TextAddr && addr-s.TextAddr < uint64(len(s.Text))
}

// Frame is the frame a fuzzed walk starts from: the registers the
// fuzzer gives (by number), ExactPC as it says.
func Frame(arch unwind.Arch, exact bool, regs map[int]uint64) *unwind.Frame {
	fr := unwind.NewFrame(arch.NumRegs())
	for r, v := range regs {
		fr.Set(r, v, unwind.SaveLoc{})
	}
	fr.ExactPC = exact
	return fr
}

// Walk steps from callee up to 64 times, calling arch.Step itself, not
// through a cursor (which turns panics into errors): a panic is a bug
// to fix. A caller without a pc and no error fails the test.
func Walk(t *testing.T, arch unwind.Arch, as unwind.AddrSpace, callee *unwind.Frame, checks ...func(t *testing.T, depth int, caller *unwind.Frame)) {
	t.Helper()
	cache := unwind.NewCache(unwind.CacheGlobal)
	for depth := 0; depth < 64; depth++ {
		savedSignal(arch, as, cache, callee)
		caller := unwind.NewFrame(arch.NumRegs())
		res, err := arch.Step(as, cache, callee, caller)
		if err != nil || res == unwind.StepEnd {
			if err != nil && errors.Is(err, unwind.ErrReadOnly) {
				t.Fatal("a step tried to write")
			}
			return
		}
		if _, ok := caller.Get(arch.PCReg()); !ok {
			t.Fatalf("depth %d: a caller without a pc and no error", depth)
		}
		for _, check := range checks {
			check(t, depth, caller)
		}
		callee = caller
	}
}

// savedSignal reads what a signal frame at callee would hold (the crash
// analysis asks this of every signal frame of a crashed thread): over
// fuzzer bytes it must not panic, whatever frame it is.
func savedSignal(arch unwind.Arch, as unwind.AddrSpace, cache *unwind.Cache, callee *unwind.Frame) {
	if sa, ok := arch.(unwind.SiginfoArch); ok {
		sa.SiginfoAddr(as, cache, callee)
	}
	if tc, ok := arch.(unwind.TrapContextArch); ok {
		tc.SavedTrap(as, cache, callee)
	}
}

// Named is Space with the program's symbols, so that steppers that read
// a function's prologue from its start (riscv64, MIPS, sparc64's save
// search) run too: Space itself names nothing.
type Named struct{ *Space }

// ProcName names the program's function holding ip.
func (s Named) ProcName(ip uint64) (string, uint64, error) {
	sym, ok := s.Obj.Symbol(ip)
	if !ok {
		return "", 0, unwind.ErrNoInfo
	}
	return sym.Name, ip - sym.Addr, nil
}

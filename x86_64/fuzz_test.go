package x86_64_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/x86_64"
)

// fuzzSpace is a target with a real program's text and CFI mapped at its
// link addresses and a stack of fuzzer bytes: every path of Step (CFI
// rows, expressions, the trampoline check, frame pointers, scanning, bad
// calls) runs on hostile stack contents and registers.
type fuzzSpace struct {
	obj       *elfx.Object
	text      []byte
	textAddr  uint64
	stack     []byte
	stackAddr uint64
}

const fuzzStackAddr = 0x7ff000000000

func (s *fuzzSpace) ByteOrder() binary.ByteOrder { return binary.LittleEndian }
func (s *fuzzSpace) PtrSize() int                { return 8 }
func (s *fuzzSpace) ReadMem(addr uint64, p []byte) error {
	for _, r := range []struct {
		b    []byte
		base uint64
	}{{s.text, s.textAddr}, {s.stack, s.stackAddr}} {
		if addr >= r.base && addr-r.base < uint64(len(r.b)) && uint64(len(p)) <= uint64(len(r.b))-(addr-r.base) {
			copy(p, r.b[addr-r.base:])
			return nil
		}
	}
	return unwind.ErrUnavailable
}
func (s *fuzzSpace) FindProcInfo(ip uint64) (*unwind.ProcInfo, error) {
	fde, err := s.obj.FindFDE(ip)
	if err != nil {
		return nil, unwind.ErrNoInfo
	}
	return &unwind.ProcInfo{StartIP: fde.Begin, EndIP: fde.End, Format: unwind.FormatCFI, Info: fde}, nil
}
func (s *fuzzSpace) ProcName(uint64) (string, uint64, error) { return "", 0, unwind.ErrNoInfo }
func (s *fuzzSpace) DynInfoListAddr() (uint64, error)        { return 0, unwind.ErrNoInfo }
func (s *fuzzSpace) IsCode(addr uint64) bool {
	return addr >= s.textAddr && addr-s.textAddr < uint64(len(s.text))
}

func FuzzStep(f *testing.F) {
	dir := f.TempDir()
	exe := testenv.BuildC(f, dir, "prog", `
#include <stdio.h>
__attribute__((noinline)) int leaf(int *p) { return *p; }
__attribute__((noinline)) int mid(int *p, int n) { char buf[64]; snprintf(buf, sizeof buf, "%d", n); return leaf(p) + buf[0]; }
int main(int argc, char **argv) { return mid(argc > 9 ? &argc : 0, argc); }
`, "-O2", "-static")
	obj, err := elfx.Open(exe)
	if err != nil {
		f.Fatal(err)
	}
	defer obj.Close()
	text := obj.ELF().Section(".text")
	code, err := text.Data()
	if err != nil {
		f.Fatal(err)
	}
	leafSym, _ := obj.LookupSymbol("leaf")
	midSym, _ := obj.LookupSymbol("mid")
	seed := make([]byte, 256)
	binary.LittleEndian.PutUint64(seed[8:], midSym.Addr+12)
	f.Add(seed, leafSym.Addr, uint64(fuzzStackAddr), uint64(fuzzStackAddr+16), true)
	f.Add(seed, uint64(0), uint64(fuzzStackAddr+8), uint64(fuzzStackAddr), true)
	f.Add(seed, midSym.Addr+20, uint64(fuzzStackAddr+32), uint64(0), false)
	arch := x86_64.Arch{}
	f.Fuzz(func(t *testing.T, stack []byte, pc, sp, fp uint64, exact bool) {
		as := &fuzzSpace{obj: obj, text: code, textAddr: text.Addr, stack: stack, stackAddr: fuzzStackAddr}
		cache := unwind.NewCache(unwind.CacheGlobal)
		callee := unwind.NewFrame(x86_64.NumRegs)
		callee.Set(x86_64.RIP, pc, unwind.SaveLoc{})
		callee.Set(x86_64.RSP, sp, unwind.SaveLoc{})
		callee.Set(x86_64.RBP, fp, unwind.SaveLoc{})
		callee.ExactPC = exact
		// Step itself, not through the cursor (which turns panics into
		// errors): a panic here is a bug to fix.
		for depth := 0; depth < 64; depth++ {
			caller := unwind.NewFrame(x86_64.NumRegs)
			res, err := arch.Step(as, cache, callee, caller)
			if err != nil || res == unwind.StepEnd {
				if err != nil && errors.Is(err, unwind.ErrReadOnly) {
					t.Fatal("a step tried to write")
				}
				return
			}
			if _, ok := caller.Get(x86_64.RIP); !ok {
				t.Fatalf("depth %d: a caller without a pc and no error", depth)
			}
			callee = caller
		}
	})
}

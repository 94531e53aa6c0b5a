package x86_64_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/fuzzspace"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/x86_64"
)

// FuzzStep steps through a real program's text and CFI with a stack and
// registers from the fuzzer (internal/fuzzspace): CFI rows, expressions,
// the trampoline check, frame pointers, scanning and bad calls all run
// on hostile input.
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
	code, textAddr, err := fuzzspace.Text(obj)
	if err != nil {
		f.Fatal(err)
	}
	leafSym, _ := obj.LookupSymbol("leaf")
	midSym, _ := obj.LookupSymbol("mid")
	seed := make([]byte, 256)
	binary.LittleEndian.PutUint64(seed[8:], midSym.Addr+12)
	f.Add(seed, leafSym.Addr, uint64(fuzzspace.StackAddr), uint64(fuzzspace.StackAddr+16), true)
	f.Add(seed, uint64(0), uint64(fuzzspace.StackAddr+8), uint64(fuzzspace.StackAddr), true)
	f.Add(seed, midSym.Addr+20, uint64(fuzzspace.StackAddr+32), uint64(0), false)
	arch := x86_64.Arch{}
	f.Fuzz(func(t *testing.T, stack []byte, pc, sp, fp uint64, exact bool) {
		as := &fuzzspace.Space{Obj: obj, Text: code, TextAddr: textAddr, Stack: stack}
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
			res, err := arch.Step(as, cache, callee, caller, depth)
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

package loong64

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/fuzzspace"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// goSource is the program FuzzStep steps through: Debian has no
// LoongArch C compiler, so it is Go (GOARCH=loong64), whose frames have
// CFI with ra saved at the bottom of each frame.
const goSource = `package main

//go:noinline
func leaf(p *int) int { return *p }

//go:noinline
func mid(p *int, n int) int { return leaf(p) + n }

func main() { println(mid(nil, 1)) }
`

// fuzzStackAddr is where the fuzzed stack is mapped.
const fuzzStackAddr = 0x7ff000000

// FuzzStep steps through a real loong64 program's text and CFI with a
// stack and registers from the fuzzer: CFI rows, the trampoline check,
// ra and the scan all run on hostile input, and r0 stays zero.
func FuzzStep(f *testing.F) {
	dir := f.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte(goSource), 0o644); err != nil {
		f.Fatal(err)
	}
	exe := filepath.Join(dir, "prog")
	cmd := exec.Command("go", "build", "-o", exe, src)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOARCH=loong64", "GOOS=linux", "CGO_ENABLED=0", "GO111MODULE=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		f.Fatalf("go build: %v\n%s", err, out)
	}
	prog := fuzzspace.Open(f, exe)
	leaf, mid := prog.Sym(f, "main.leaf"), prog.Sym(f, "main.mid")
	seed := make([]byte, 256)
	binary.LittleEndian.PutUint64(seed[0:], mid+16) // ra saved at 0(sp)
	f.Add(seed, leaf+4, uint64(fuzzStackAddr), mid+12, true)
	f.Add(seed, mid+20, uint64(fuzzStackAddr), uint64(0), false)
	f.Add(seed, uint64(0), uint64(fuzzStackAddr+8), mid+12, true)
	f.Fuzz(func(t *testing.T, stack []byte, pc, sp, ra uint64, exact bool) {
		as := &fuzzspace.Space{Program: prog, Stack: stack, StackAddr: fuzzStackAddr}
		regs := map[int]uint64{PC: pc, SP: sp, RA: ra}
		fuzzspace.Walk(t, Arch{}, as, fuzzspace.Frame(Arch{}, exact, regs), func(t *testing.T, depth int, caller *unwind.Frame) {
			if v, ok := caller.Get(Zero); ok && v != 0 {
				t.Fatalf("depth %d: zero = %#x", depth, v)
			}
		})
	})
}

// FuzzFrameFromThread: register notes of any size and content give a
// frame or an error.
func FuzzFrameFromThread(f *testing.F) {
	gregs := make([]byte, gregsSize)
	for i := range gregs {
		gregs[i] = byte(i)
	}
	f.Add(gregs)
	f.Add(gregs[:100])
	f.Fuzz(func(t *testing.T, gregs []byte) {
		fuzzspace.FrameFromThread(t, Arch{}, &unwind.ThreadState{GRegs: gregs, Order: binary.LittleEndian})
	})
}

// TestStepSigreturn: a frame at the trampoline ("ori a7,zero,139;
// syscall 0", as qemu-user and the vDSO have it) continues at the pc and
// registers of the sigcontext inside the rt_sigframe at sp.
func TestStepSigreturn(t *testing.T) {
	const tramp, sp = 0x10000, 0x7f0000
	ctx := make([]byte, 33*8)
	binary.LittleEndian.PutUint64(ctx, 0x9abc0) // sc_pc
	for r := 1; r < 32; r++ {
		binary.LittleEndian.PutUint64(ctx[8+r*8:], 0x1000+uint64(r))
	}
	code := make([]byte, 8)
	binary.LittleEndian.PutUint32(code, insnOriA7Sigreturn)
	binary.LittleEndian.PutUint32(code[4:], insnSyscall0)
	as := &unwindtest.Space{Mem: []unwindtest.Region{{Addr: tramp, Data: code}, {Addr: sp + scPCOff, Data: ctx}}}
	callee, caller := unwind.NewFrame(NumRegs), unwind.NewFrame(NumRegs)
	callee.Set(PC, tramp, unwind.SaveLoc{})
	callee.Set(SP, sp, unwind.SaveLoc{})
	if !(Arch{}).IsSignalFrame(as, unwind.NewCache(unwind.CacheNone), callee) {
		t.Fatal("the trampoline is not a signal frame")
	}
	if _, err := (Arch{}).Step(as, unwind.NewCache(unwind.CacheNone), callee, caller); err != nil {
		t.Fatal(err)
	}
	if pc, _ := caller.Get(PC); pc != 0x9abc0 || !caller.ExactPC {
		t.Errorf("pc %#x (exact %v), want 0x9abc0, exact", pc, caller.ExactPC)
	}
	for r := 1; r < 32; r++ {
		if v, _ := caller.Get(r); v != 0x1000+uint64(r) {
			t.Errorf("%s = %#x", RegName(uint64(r)), v)
		}
	}
}

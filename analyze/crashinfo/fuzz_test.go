package crashinfo

import (
	"encoding/binary"
	"testing"

	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/x86_64"
)

// FuzzAnalyze: hostile registers, memory, signal and code never make the
// analysis panic or claim a kind without a summary. Memory is one region
// of fuzzer bytes at memBase that holds the code at pc, the stack and
// whatever pointers lead into it; the memory map has it and one guard
// page below.
func FuzzAnalyze(f *testing.F) {
	f.Add([]byte{0x8b, 0x40, 0x18, 0, 0, 0, 0, 0}, "SIGSEGV", 1, uint64(0x18), uint64(0), uint64(memBase+0x800))
	f.Add([]byte{0x0f, 0x0b}, "SIGILL", 2, uint64(memBase), uint64(0), uint64(memBase+0x800))
	f.Add([]byte{0xf7, 0x7d, 0xf8, 0, 0, 0, 0, 0, 0, 0}, "SIGFPE", 1, uint64(memBase), uint64(memBase+8), uint64(memBase+0x10))
	f.Add([]byte{0x89, 0xbd, 0xfc, 0xfd, 0xff, 0xff}, "SIGSEGV", 2, uint64(memBase-0x100), uint64(memBase+0x100), uint64(memBase-0x200))
	f.Add([]byte{0x48, 0x8b, 0x00}, "SIGSEGV", 0x80, uint64(0), uint64(0x8000000000000000), uint64(memBase))
	f.Add([]byte{}, "SIGABRT", -6, uint64(0), uint64(0), uint64(memBase))
	// A code divisible by 3: no siginfo (qemu-user's cores), the fault
	// is proven from the instruction or not at all.
	f.Add([]byte{0x8b, 0x40, 0x18, 0, 0, 0, 0, 0}, "SIGSEGV", 3, uint64(0), uint64(0x7f0000000000), uint64(memBase+0x800))
	f.Add([]byte{0xc7, 0x40, 0x18, 0x2a, 0, 0, 0}, "SIGSEGV", 3, uint64(0), uint64(memBase), uint64(memBase+0x800))
	// libc++abi (a code divisible by 4): an uncaught exception whose
	// header the stack points to.
	f.Add(libcxxabiSeed(), "SIGABRT", 4, uint64(0), uint64(0), uint64(memBase))
	f.Fuzz(func(t *testing.T, mem []byte, sig string, code int, addr, rax, sp uint64) {
		if len(mem) > 1<<16 {
			return
		}
		in := fuzzInput(mem, sig, code, addr, rax, sp)
		c := Analyze(in)
		if c != nil && (c.Summary == "" || c.Kind == "") {
			t.Fatalf("kind %q summary %q", c.Kind, c.Summary)
		}
		if c != nil && c.ExceptionType != nil && *c.ExceptionType == "" {
			t.Fatalf("an empty exception type")
		}
	})
}

// libcxxabiSeed is memory whose first word (the stack) points to a
// caught libc++abi exception's header: a std::runtime_error.
func libcxxabiSeed() []byte {
	mem := make([]byte, 0x400)
	put := func(off int, v uint64) { binary.LittleEndian.PutUint64(mem[off:], v) }
	l := libcxxabiLayout(8)
	hdr := 0x100
	put(0, memBase+uint64(hdr))
	put(hdr+int(l.typeInfo), memBase+0x280)
	binary.LittleEndian.PutUint32(mem[hdr+int(l.handlerCount):], 1)
	put(hdr+int(l.unwind), clangCxxClass)
	put(0x288, memBase+0x300)
	copy(mem[0x300:], "St13runtime_error\x00")
	return mem
}

// fuzzInput is FuzzAnalyze's input: mem at memBase, the registers from
// rax, the frames by the code's parity.
func fuzzInput(mem []byte, sig string, code int, addr, rax, sp uint64) *Input {
	arch := x86_64.Arch{}
	f0 := unwind.NewFrame(arch.NumRegs())
	for r := range arch.NumRegs() {
		f0.Set(r, rax+uint64(r)*8, unwind.SaveLoc{Kind: unwind.LocSame})
	}
	f0.Set(x86_64.RAX, rax, unwind.SaveLoc{})
	f0.Set(x86_64.RSP, sp, unwind.SaveLoc{})
	f0.Set(x86_64.RIP, memBase, unwind.SaveLoc{})
	end := report.Hex(memBase + uint64(len(mem)))
	// abort, or an uncaught exception's frames (terminate from
	// __cxa_throw), by the code's parity.
	abort, caller := "abort", "main"
	frames := []report.Frame{{Function: &abort, SP: report.Ptr(report.Hex(sp))}}
	if code%2 == 0 {
		terminate := "std::terminate()"
		caller = "__cxa_throw"
		frames = append(frames, report.Frame{Function: &terminate, SP: report.Ptr(report.Hex(sp + 8))})
	}
	frames = append(frames, report.Frame{Function: &caller, SP: report.Ptr(report.Hex(sp + 16)), PC: report.Hex(binary.LittleEndian.Uint64(append(append([]byte{}, mem...), make([]byte, 8)...)))})
	return &Input{
		Arch:   arch,
		Mem:    &fakeMem{memBase, mem},
		Signal: Signal{Name: sig, Code: code, Addr: addr, HasAddr: code%3 != 0},
		Frame0: f0,
		Frames: frames,
		Mappings: []report.Mapping{
			{Start: memBase - 0x1000, End: memBase, Perms: "---"},
			{Start: memBase, End: end, Perms: "r-x", Path: report.Ptr("/x")},
		},
		DataSymbol: func(name string) (uint64, bool) {
			if name == libcxxabiTerminateHandler {
				return memBase, code%4 == 0
			}
			return memBase, true
		},
		CodeSymbol:    func(string) (uint64, bool) { return memBase, true },
		ThreadPointer: func() (uint64, bool) { return sp, true },
		Section:       func(string, uint64) string { return ".rodata" },
	}
}

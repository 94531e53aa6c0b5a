package corefile

import (
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/crossarch/hpux"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

const (
	pa64Data  = 0x800003FFFF000000
	pa64Stack = 0x800003FFFF400000
	pa64Shm   = 0x8000000100000000
	pa64Mmf   = 0xC000000000000000
)

// hpuxPA64Core is an HP-UX PA-RISC 2.0W core with one segment of every
// type and two threads, the second the one that took the signal.
func hpuxPA64Core(osabi elf.OSABI) []byte {
	r := hpux.PARegs{Flags: hpux.SSWideRegs}
	r.Slots[30] = pa64Stack + 0x100
	r.Slots[hpux.SlotPCOQHead] = 0x10284 | 3
	idle := hpux.ProcInfo(-1, 0, r.SaveState(), 7)
	crashed := hpux.ProcInfo(11, 15, r.SaveState(), 9)
	return hpux.ELF64(elf.EM_PARISC, osabi, 0x214, []hpux.Segment{
		{Type: hpux.PTNone},
		{Type: hpux.PTVersion, Data: []byte{0, 0, 0, 1}, Flags: elf.PF_R},
		{Type: hpux.PTKernel, Data: []byte("HP-UX\x00host\x00B.11.31\x00U\x009000/800\x00"), Flags: elf.PF_R},
		{Type: hpux.PTComm, Data: []byte("crashprog\x00\x00\x00\x00\x00\x00\x00"), Flags: elf.PF_R},
		{Type: hpux.PTProc, Data: idle, Flags: elf.PF_R},
		{Type: hpux.PTProc, Data: crashed, Flags: elf.PF_R},
		{Type: hpux.PTLoadable, Vaddr: pa64Data, Data: bytes.Repeat([]byte{0xda}, 0x2000), Flags: elf.PF_R | elf.PF_W},
		{Type: hpux.PTStack, Vaddr: pa64Stack, Data: bytes.Repeat([]byte{0x5a}, 0x1000), Flags: elf.PF_R | elf.PF_W},
		{Type: hpux.PTShm, Vaddr: pa64Shm, Data: bytes.Repeat([]byte{0x3c}, 0x1000), Flags: elf.PF_R | elf.PF_W},
		{Type: hpux.PTMmf, Vaddr: pa64Mmf, Data: bytes.Repeat([]byte{0xf1}, 0x1000), Flags: elf.PF_R | elf.PF_X},
		{Type: hpux.PTUtsname, Data: []byte("HP-UX\x00host\x00"), Flags: elf.PF_R},
	})
}

func TestHPUXELF64Core(t *testing.T) {
	// HP-UX's kernel writes EI_OSABI 0, binutils wants 1: both are HP-UX.
	for _, osabi := range []elf.OSABI{elf.ELFOSABI_NONE, elf.ELFOSABI_HPUX} {
		c, err := OpenBytes(hpuxPA64Core(osabi), Options{})
		if err != nil {
			t.Fatalf("osabi %d: %v", osabi, err)
		}
		if c.Format != "elf-hpux" || c.OS != "hpux" || c.Arch != "hppa64" || c.Comm != "crashprog" {
			t.Errorf("format %q os %q arch %q comm %q", c.Format, c.OS, c.Arch, c.Comm)
		}
		if c.HPUX == nil || c.HPUX.Version != 1 || len(c.HPUX.Kernel) < 3 || c.HPUX.Kernel[0] != "HP-UX" || c.HPUX.Kernel[2] != "B.11.31" {
			t.Errorf("HP-UX info %+v", c.HPUX)
		}
		if len(c.Threads) != 2 || c.Threads[0].TID != 7 || c.Threads[1].TID != 9 || c.CrashedTID != 9 {
			t.Fatalf("threads %d, crashed %d", len(c.Threads), c.CrashedTID)
		}
		if c.Signal == nil || c.Signal.Number != 11 || c.Threads[0].Signal != 0 {
			t.Errorf("signal %+v, idle thread's %d", c.Signal, c.Threads[0].Signal)
		}
		th := c.Threads[1]
		if len(th.GRegs) != hpux.SaveStateSize || len(th.Notes[NTHPUXProcInfo]) != 8+hpux.SaveStateSize+8 || th.GRegs[0x280+8*30+7] != 0x00 {
			t.Errorf("save state %d bytes, proc_info %d", len(th.GRegs), len(th.Notes[NTHPUXProcInfo]))
		}
		for _, m := range []struct {
			addr uint64
			want byte
		}{{pa64Data + 0x1fff, 0xda}, {pa64Stack, 0x5a}, {pa64Shm + 10, 0x3c}, {pa64Mmf, 0xf1}} {
			var b [1]byte
			if err := c.ReadMem(m.addr, b[:]); err != nil || b[0] != m.want {
				t.Errorf("memory at %#x: %#x %v, want %#x", m.addr, b[0], err, m.want)
			}
		}
		if !c.IsCode(pa64Mmf) || c.IsCode(pa64Stack) {
			t.Errorf("IsCode: mmf %v stack %v", c.IsCode(pa64Mmf), c.IsCode(pa64Stack))
		}
		c.Close()
	}
}

// TestHPUXELF64CoreAgreesWithBFD asks binutils' elf64-hppa backend what it
// makes of the same file: .kernel, .reg (the whole proc segment) and the
// memory segments as loadable sections at their addresses.
func TestHPUXELF64CoreAgreesWithBFD(t *testing.T) {
	objdump := testenv.NeedTool(t, "hppa64-linux-gnu-objdump")
	p := filepath.Join(t.TempDir(), "core")
	if err := os.WriteFile(p, hpuxPA64Core(elf.ELFOSABI_HPUX), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(objdump, "-h", p).CombinedOutput()
	if err != nil {
		t.Fatalf("objdump -h: %v\n%s", err, out)
	}
	c, err := OpenBytes(hpuxPA64Core(elf.ELFOSABI_HPUX), Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	if !strings.Contains(text, "elf64-hppa") || !regexp.MustCompile(`\.kernel\s`).MatchString(text) {
		t.Fatalf("objdump does not see an HP-UX core:\n%s", text)
	}
	if m := regexp.MustCompile(`\.reg\s+([0-9a-f]+)`).FindStringSubmatch(text); m == nil || m[1] != "00000490" {
		t.Errorf(".reg %v, want the %d-byte proc_info:\n%s", m, 8+hpux.SaveStateSize+8, text)
	}
	// Every segment bfd loads is memory coreunwind reads at the same VMA.
	loads := regexp.MustCompile(`(?m)^\s*\d+\s+proc\d+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+[0-9a-f]+\s+\S+\n\s+(.*)$`).FindAllStringSubmatch(text, -1)
	n := 0
	for _, l := range loads {
		if !strings.Contains(l[3], "LOAD") {
			continue
		}
		n++
		var vma uint64
		for _, ch := range l[2] {
			vma = vma<<4 | uint64(strings.IndexRune("0123456789abcdef", ch))
		}
		var b [1]byte
		if err := c.ReadMem(vma, b[:]); err != nil {
			t.Errorf("bfd loads a segment at %#x; coreunwind: %v", vma, err)
		}
	}
	if n != 3 {
		t.Errorf("bfd loads %d segments, want LOADABLE, STACK and MMF:\n%s", n, text)
	}
}

func TestHPUXIA64CoreIsArchNeutral(t *testing.T) {
	proc := make([]byte, 8+2048)
	be.PutUint32(proc, 6)
	copy(proc[8:], "ia64-state")
	data := hpux.ELF64(elf.EM_IA_64, elf.ELFOSABI_NONE, 0x10, []hpux.Segment{
		{Type: hpux.PTKernel, Data: []byte("HP-UX\x00"), Flags: elf.PF_R},
		{Type: hpux.PTProc, Data: proc, Flags: elf.PF_R},
		{Type: hpux.PTStack, Vaddr: 0x9FFFFFFFFFFF0000, Data: make([]byte, 0x100), Flags: elf.PF_R | elf.PF_W},
	})
	c, err := OpenBytes(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Arch != "ia64" || c.OS != "hpux" || len(c.Threads) != 1 || c.Signal == nil || c.Signal.Number != 6 {
		t.Fatalf("arch %s os %s threads %d signal %+v", c.Arch, c.OS, len(c.Threads), c.Signal)
	}
	th := c.Threads[0]
	if th.TID != 1 || !bytes.HasPrefix(th.GRegs, []byte("ia64-state")) || len(th.GRegs) != 2048 || !bytes.Equal(th.Notes[NTHPUXProcInfo], proc) {
		t.Errorf("thread %d, save area %d bytes", th.TID, len(th.GRegs))
	}
}

var be = binaryBE{}

type binaryBE struct{}

func (binaryBE) PutUint32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
}

// coreheadCore is a 32-bit HP-UX core: format, kernel, exec, two threads,
// data, stack, text, and an unknown record.
func coreheadCore() []byte {
	r := hpux.PARegs{}
	r.Slots[30] = 0x7b03a000
	r.Slots[hpux.SlotPCOQHead] = 0x31f4 | 3
	return hpux.Corehead([]hpux.Record{
		{Type: hpux.CoreFormat, Data: []byte{0, 0, 0, 2}},
		{Type: hpux.CoreKernel, Data: []byte("HP-UX\x00B.10.20\x00")},
		{Type: hpux.CoreExec, Data: hpux.ProcExec(0x20b, 0x1000, 0x4000, 0x1234, "a.out")},
		{Type: hpux.CoreProc, Data: hpux.ProcInfo(-1, 0, r.SaveState(), 0)},
		{Type: hpux.CoreProc, Data: hpux.ProcInfo(11, 18, r.SaveState(), 0)},
		{Type: 0x4000, Data: []byte("future")},
		{Type: hpux.CoreData, Addr: 0x40001000, Data: bytes.Repeat([]byte{0xd0}, 0x800)},
		{Type: hpux.CoreStack, Space: 0x1234, Addr: 0x7b03a000 - 0x800, Data: bytes.Repeat([]byte{0x57}, 0x800)},
		{Type: hpux.CoreText, Addr: 0x1000, Data: bytes.Repeat([]byte{0x08}, 0x400)},
	})
}

func TestCoreheadCore(t *testing.T) {
	p := filepath.Join(t.TempDir(), "core")
	if err := os.WriteFile(p, coreheadCore(), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Format != "som-hpux" || c.Arch != "hppa" || c.OS != "hpux" || c.ByteOrder().String() != "BigEndian" || c.PtrSize() != 4 {
		t.Errorf("format %q arch %q os %q", c.Format, c.Arch, c.OS)
	}
	if c.Comm != "a.out" || c.HPUX.Exec == nil || c.HPUX.Exec.Magic != 0x20b || c.HPUX.Exec.TMem != 0x1000 || c.HPUX.Exec.Entry != 0x1234 || c.HPUX.Version != 2 {
		t.Errorf("comm %q exec %+v", c.Comm, c.HPUX.Exec)
	}
	if len(c.Threads) != 2 || c.CrashedTID != 2 || c.Signal == nil || c.Signal.Number != 11 || len(c.Threads[1].GRegs) != hpux.SaveStateSize {
		t.Fatalf("threads %d crashed %d signal %+v", len(c.Threads), c.CrashedTID, c.Signal)
	}
	var b [4]byte
	if err := c.ReadMem(0x7b03a000-4, b[:]); err != nil || b[0] != 0x57 {
		t.Errorf("stack: %x %v", b, err)
	}
	if err := c.ReadMem(0x40001000, b[:]); err != nil || b[0] != 0xd0 {
		t.Errorf("data: %x %v", b, err)
	}
	if !c.IsCode(0x1000) || c.IsCode(0x40001000) {
		t.Errorf("text is code %v, data is code %v", c.IsCode(0x1000), c.IsCode(0x40001000))
	}
	if !strings.Contains(strings.Join(c.Warnings, "\n"), "unknown corehead record type 0x4000") {
		t.Errorf("warnings %q: want the unknown record skipped with a warning", c.Warnings)
	}
}

// TestCoreheadTruncatedAndBad cuts the core at every record boundary and
// in the middle of records, and corrupts lengths: each gives a core with
// a warning or a clear error, never a panic.
func TestCoreheadTruncatedAndBad(t *testing.T) {
	full := coreheadCore()
	for n := 0; n < len(full); n += 7 {
		c, err := OpenBytes(full[:n], Options{})
		if err != nil {
			if !errors.Is(err, ErrNotCore) {
				t.Errorf("cut at %d: %v, want ErrNotCore", n, err)
			}
			continue
		}
		if len(c.Threads) == 0 {
			t.Errorf("cut at %d: a core without threads", n)
		}
		if n < len(full) && len(c.Warnings) == 0 {
			t.Errorf("cut at %d: no warning", n)
		}
	}
	bad := bytes.Clone(full)
	be.PutUint32(bad[12:], 0xfffffff0) // first record's len past the end
	if _, err := OpenBytes(bad, Options{}); !errors.Is(err, ErrNotCore) {
		t.Errorf("huge first length: %v", err)
	}
	if _, err := OpenBytes([]byte("HP-UX is not a core header at all"), Options{}); !errors.Is(err, ErrNotCore) {
		t.Errorf("text: %v", err)
	}
}

func TestHPUXELFTruncated(t *testing.T) {
	full := hpuxPA64Core(elf.ELFOSABI_HPUX)
	for n := 64; n < len(full); n += 97 {
		c, err := OpenBytes(full[:n], Options{})
		if err == nil && len(c.Threads) == 0 {
			t.Errorf("cut at %d: no error and no thread", n)
		}
	}
}

func FuzzOpenHPUXELF(f *testing.F) {
	f.Add(hpuxPA64Core(elf.ELFOSABI_HPUX))
	f.Add(hpuxPA64Core(elf.ELFOSABI_NONE)[:3000])
	f.Fuzz(func(t *testing.T, data []byte) {
		if c, err := OpenBytes(data, Options{}); err == nil {
			var b [16]byte
			for _, s := range c.Segments {
				c.ReadMem(s.Vaddr, b[:])
			}
			c.Close()
		}
	})
}

// FuzzOpenCorehead starts from small cores: go test's minimizer (up to
// -fuzzminimizetime per new input, 60 s by default) costs time quadratic
// in the input's size, and with the 7.7 KB coreheadCore as the seed it
// held the fuzzer at 0 execs/s for most of a minute; the parser itself
// takes about 5 µs per open of that core (BenchmarkOpenCorehead).
func FuzzOpenCorehead(f *testing.F) {
	f.Add(coreheadSeed())
	r := hpux.PARegs{}
	f.Add(hpux.Corehead([]hpux.Record{{Type: hpux.CoreProc, Data: hpux.ProcInfo(11, 0, r.SaveState()[:512], 0)}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		if c, err := OpenBytes(data, Options{}); err == nil {
			var b [16]byte
			for _, s := range c.Segments {
				c.ReadMem(s.Vaddr, b[:])
			}
			c.Close()
		}
	})
}

// coreheadSeed is coreheadCore with every record type but small payloads.
func coreheadSeed() []byte {
	r := hpux.PARegs{}
	r.Slots[30] = 0x7b03a000
	r.Slots[hpux.SlotPCOQHead] = 0x31f4 | 3
	return hpux.Corehead([]hpux.Record{
		{Type: hpux.CoreFormat, Data: []byte{0, 0, 0, 2}},
		{Type: hpux.CoreKernel, Data: []byte("HP-UX\x00B.10.20\x00")},
		{Type: hpux.CoreExec, Data: hpux.ProcExec(0x20b, 0x1000, 0x4000, 0x1234, "a.out")},
		{Type: hpux.CoreProc, Data: hpux.ProcInfo(11, 18, r.SaveState()[:512], 0)},
		{Type: 0x4000, Data: []byte("future")},
		{Type: hpux.CoreData, Addr: 0x40001000, Data: bytes.Repeat([]byte{0xd0}, 16)},
		{Type: hpux.CoreStack, Space: 0x1234, Addr: 0x7b03a000 - 16, Data: bytes.Repeat([]byte{0x57}, 16)},
		{Type: hpux.CoreText, Addr: 0x1000, Data: bytes.Repeat([]byte{0x08}, 16)},
	})
}

func BenchmarkOpenCorehead(b *testing.B) {
	data := coreheadCore()
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if c, err := OpenBytes(data, Options{}); err == nil {
			c.Close()
		}
	}
}

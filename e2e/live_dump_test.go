package e2e

import (
	"bytes"
	"debug/elf"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/corefile"
	"golang.org/x/sys/unix"
)

// A dump of livemem.c (coreunwind gcore): 256 MiB of anonymous memory
// of which three pages are written, and a thread whose ymm0 holds the
// bytes 1 to 32.

// dumpLivemem starts livemem and writes its core with coreunwind gcore.
func dumpLivemem(t *testing.T) (*liveTarget, string) {
	t.Helper()
	lt := startLive(t, "livemem", false)
	dump := filepath.Join(t.TempDir(), "livemem.core")
	r := runCoreunwind(t, "gcore", "-o", dump, strconv.Itoa(lt.pid))
	if r.Code != exitOK {
		t.Fatalf("coreunwind gcore: exit %d, stderr %s", r.Code, r.Stderr)
	}
	lt.checkRunning(t, 2*time.Second)
	return lt, dump
}

// TestLiveDumpSparse: the pages a process never touched and its pages of
// zeros are holes in the dump, as in the kernel's cores: 256 MiB of
// memory, three pages of it written, take a few MiB of disk, not 256;
// and the dump still reads as the process: gdb finds the three pages'
// strings where the program wrote them, eu-stack and coreunwind unwind
// both threads.
func TestLiveDumpSparse(t *testing.T) {
	t.Parallel()
	lt, dump := dumpLivemem(t)
	var st unix.Stat_t
	if err := unix.Stat(dump, &st); err != nil {
		t.Fatal(err)
	}
	if st.Size < 256<<20 {
		t.Fatalf("the dump is %d bytes: smaller than the memory it holds", st.Size)
	}
	if disk := st.Blocks * 512; disk > 32<<20 {
		t.Errorf("the dump of %d bytes takes %d bytes of disk: its untouched memory was written out", st.Size, disk)
	}
	out := gdbCommands(t, lt.exe, dump, "x/s big", "x/s big+134217728", "x/s big+268431360")
	for _, want := range []string{`"first"`, `"middle"`, `"last"`} {
		if !strings.Contains(out, want) {
			t.Errorf("gdb does not read %s from the dump:\n%s", want, out)
		}
	}
	if eu, _ := runEuStack(t, lt.exe, dump); len(eu) != 2 {
		t.Errorf("eu-stack reads %d threads from the dump, want 2", len(eu))
	}
	rep, _ := unwindJSON(t, nil, dump, lt.exe)
	if len(rep.Threads) != 2 {
		t.Fatalf("coreunwind reads %d threads from the dump, want 2", len(rep.Threads))
	}
	for _, th := range rep.Threads {
		if th.Error != nil || len(th.Frames) == 0 {
			t.Errorf("thread %d: %d frames, error %v", th.TID, len(th.Frames), th.Error)
		}
	}
}

// TestLiveDumpVectorRegisters: the dump holds every thread's XSAVE area
// (NT_X86_XSTATE) and its layout (NT_X86_XSAVE_LAYOUT) as the kernel's
// cores do, so that debuggers show the vector registers: the vectors
// thread's ymm0 is 1..32 in the dump (the low half where FXSAVE keeps
// xmm0, the high half where the layout puts AVX's), and gdb prints the
// same xmm0 from the dump as from the process. (Whether gdb shows ymm0's
// high half from a core depends on its version knowing the CPU's XSAVE
// layout: gdb 13 does not, for the kernel's cores either, on AMD's
// Zen 4.)
func TestLiveDumpVectorRegisters(t *testing.T) {
	t.Parallel()
	lt, dump := dumpLivemem(t)
	var pattern [32]byte
	for i := range pattern {
		pattern[i] = byte(i + 1)
	}
	avx := xsaveAVXOffset(t, dump)
	c, err := corefile.Open(dump, corefile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const xmm0 = 160 // in the FXSAVE part
	found := 0
	for _, th := range c.Threads {
		x := th.XState
		if len(x) < avx+16 {
			t.Errorf("thread %d: %d bytes of XSAVE area in the dump", th.TID, len(x))
			continue
		}
		if bytes.Equal(x[xmm0:xmm0+16], pattern[:16]) && bytes.Equal(x[avx:avx+16], pattern[16:]) {
			found++
		}
	}
	if found != 1 {
		t.Errorf("%d threads of the dump have ymm0 = 1..32, want 1", found)
	}
	const want = "{0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7, 0x8, 0x9, 0xa, 0xb, 0xc, 0xd, 0xe, 0xf, 0x10}"
	fromDump := gdbCommands(t, lt.exe, dump, "thread apply all p/x $xmm0.v16_int8")
	fromProcess := gdbCommands(t, lt.exe, strconv.Itoa(lt.pid), "thread apply all p/x $xmm0.v16_int8")
	if !strings.Contains(fromDump, want) || !strings.Contains(fromProcess, want) {
		t.Errorf("gdb's xmm0 of the vectors thread, from the dump:\n%s\nfrom the process:\n%s", fromDump, fromProcess)
	}
	lt.checkRunning(t, 2*time.Second)
}

// xsaveAVXOffset is where the dump's NT_X86_XSAVE_LAYOUT puts AVX's state
// component (feature 2) in the XSAVE areas.
func xsaveAVXOffset(t *testing.T, dump string) int {
	t.Helper()
	f, err := elf.Open(dump)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		raw, err := io.ReadAll(p.Open())
		if err != nil {
			t.Fatal(err)
		}
		notes, err := corefile.ParseNotes(raw, f.ByteOrder, int(p.Align))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range notes {
			if n.Name != "LINUX" || n.Type != 0x205 {
				continue
			}
			for d := n.Desc; len(d) >= 16; d = d[16:] {
				if f.ByteOrder.Uint32(d) == 2 {
					return int(f.ByteOrder.Uint32(d[8:]))
				}
			}
			t.Fatalf("the dump's NT_X86_XSAVE_LAYOUT has no AVX component: %x", n.Desc)
		}
	}
	t.Fatal("the dump has no NT_X86_XSAVE_LAYOUT note")
	return 0
}

package pa64_test

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/internal/crossarch/hppa"
	"github.com/coreunwind/coreunwind/pa64"
	"github.com/coreunwind/coreunwind/unwind"
)

// TestCalleeSavedFRsMatchLiveValues crashes fpsave.c (compiled by
// hppa-linux-gnu-gcc) under qemu-hppa. gdb records, without unwinding,
// fr0..fr31 at the first instruction of each function on the crash path:
// there they are the caller's values, and fr12..fr21 are callee-saved, so
// they are what the caller still holds when the crash strikes. coreunwind
// walks the core and must recover exactly those values in every caller
// frame: through fstd,ma saves via r1 in a plain frame, a frame over 8 KiB
// and an alloca frame that saves through r3, and in main, under all of
// them.
//
// gdb's own answer (frame N + info registers) is only logged: gdb 13
// does not follow gcc's saves through r1 and reports wrong values for
// most of them.
func TestCalleeSavedFRsMatchLiveValues(t *testing.T) {
	hppa.PA32.Need(t)
	dir := t.TempDir()
	src, _ := filepath.Abs("testdata/progs/fpsave.c")
	prog := hppa.PA32.Build(t, dir, "fpsave", src, "-g", "-O1")
	chain := []string{"crash", "fpmany", "withalloca", "bigfp", "outer", "main"}
	var gdbFrames []string
	for i := 1; i < len(chain); i++ {
		gdbFrames = append(gdbFrames, fmt.Sprintf("frame %d", i), fmt.Sprintf("echo #%d\\n", i), "info registers fr12 fr12R fr13 fr13R fr14 fr14R fr15 fr15R fr16 fr16R fr17 fr17R fr18 fr18R fr19 fr19R fr20 fr20R fr21 fr21R")
	}
	hppa.CrashUnderGDBWith(t, dir, prog, hppa.GDBOptions{RecordEntryFRs: chain[:len(chain)-1], Commands: gdbFrames})
	entry := hppa.EntryFRs(t, dir)
	core := hppa.WriteCore(t, dir)

	c, err := corefile.Open(core, corefile.Options{Executable: prog})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	exe, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	syms, _ := exe.Symbols()
	as := coreSpace(c, exe, prog, syms)
	arch := pa64.New(false)
	th := c.Threads[0]
	if len(th.FPRegs) != 256 {
		t.Fatalf("core thread has %d bytes of FP registers, want 256", len(th.FPRegs))
	}
	f0, err := arch.FrameFromThread(&unwind.ThreadState{GRegs: th.GRegs, Notes: map[uint32][]byte{2: th.FPRegs}, Order: c.ByteOrder(), Mem: as})
	if err != nil {
		t.Fatal(err)
	}
	cur, err := unwind.NewCursor(as, arch, f0, unwind.Options{Cache: unwind.NewCache(unwind.CacheGlobal)})
	if err != nil {
		t.Fatal(err)
	}
	gdbSays := parseGDBFrameFRs(t, filepath.Join(dir, "extra.txt"))
	compared, gdbWrong := 0, 0
	for depth := 0; depth < len(chain); depth++ {
		if depth > 0 {
			if ok, err := cur.Step(); !ok || err != nil {
				t.Fatalf("step to frame %d: %v %v", depth, ok, err)
			}
		}
		name, _, _ := cur.ProcName()
		if name != chain[depth] {
			t.Fatalf("frame %d is %q, want %s", depth, name, chain[depth])
		}
		if depth == 0 {
			continue
		}
		callee := chain[depth-1]
		want := entry[callee]
		if len(want) != 32 {
			t.Fatalf("gdb recorded no registers at %s's entry", callee)
		}
		for r := 12; r <= 21; r++ {
			got, err := cur.Reg(pa64.FR0 + r)
			if err != nil {
				t.Errorf("frame %d (%s): fr%d: %v", depth, name, r, err)
				continue
			}
			compared++
			if got != want[r] {
				t.Errorf("frame %d (%s): fr%d = %#016x, live at the call to %s %#016x", depth, name, r, got, callee, want[r])
			}
			if g, ok := gdbSays[depth][r]; !ok || g != want[r] {
				gdbWrong++
			}
		}
	}
	t.Logf("gdb's frame N + info registers disagrees with the live values for %d of %d saved FRs", gdbWrong, compared)
	if compared != 10*(len(chain)-1) {
		t.Errorf("compared %d registers", compared)
	}
	// The values must differ between frames, or the test proves nothing.
	if entry["fpmany"][12] == entry["crash"][12] && entry["bigfp"][12] == entry["crash"][12] {
		t.Error("fr12 is the same in every frame: the program does not exercise the saves")
	}
}

var gdbRegLine = regexp.MustCompile(`^fr(\d+)(R?)\s+.*\(raw (0x[0-9a-f]+)\)`)

// parseGDBFrameFRs reads the extra.txt the per-frame info registers
// commands wrote: fr12..fr21 as 64-bit values by frame number.
func parseGDBFrameFRs(t *testing.T, path string) map[int]map[int]uint64 {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]map[int]uint64{}
	frame := -1
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "#") {
			frame, _ = strconv.Atoi(strings.Fields(line[1:])[0])
			out[frame] = map[int]uint64{}
			continue
		}
		m := gdbRegLine.FindStringSubmatch(line)
		if m == nil || frame < 0 {
			continue
		}
		r, _ := strconv.Atoi(m[1])
		v, _ := strconv.ParseUint(m[3][2:], 16, 64)
		if m[2] == "R" {
			out[frame][r] |= v
		} else {
			out[frame][r] |= v << 32
		}
	}
	return out
}

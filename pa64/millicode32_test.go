package pa64_test

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/crossarch/hppa"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/pa64/unwtab"
)

// TestSaveMRPInFrame runs a millicode routine that saved r31 at sp-20 and
// then clobbered r31 (savemrp.S, its descriptor marked Save_MRP_in_frame)
// to a fault under qemu-hppa. The caller's pc must come from the frame
// marker slot, and be the address after the b,l's delay slot as objdump
// shows the call.
func TestSaveMRPInFrame(t *testing.T) {
	hppa.PA32.Need(t)
	dir := t.TempDir()
	src, _ := filepath.Abs("testdata/progs/savemrp.c")
	asm, _ := filepath.Abs("testdata/progs/savemrp.S")
	prog := hppa.PA32.Build(t, dir, "savemrp", src, "-g", "-O1", asm)
	setSaveMRP(t, prog, "mill_crash")

	out, err := exec.Command(testenv.NeedTool(t, hppa.PA32.Objdump), "-d", prog).Output()
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s+([0-9a-f]+):\s+(?:[0-9a-f]{2} ){4}\s*b,l [0-9a-f]+ <mill_crash>,r31`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("objdump shows no b,l to mill_crash:\n%s", out)
	}
	call, _ := strconv.ParseUint(string(m[1]), 16, 64)

	hppa.CrashUnderGDB(t, dir, prog)
	core := hppa.WriteCore(t, dir)
	r, err := analyze.Analyze(core, analyze.Options{Executable: prog, Sysroot: hppa.Sysroot})
	if err != nil {
		t.Fatal(err)
	}
	fr := r.Threads[0].Frames
	want := []string{"mill_crash", "call_mill", "main"}
	if len(fr) < len(want) {
		t.Fatalf("%d frames: %+v (error %s)", len(fr), fr, deref(r.Threads[0].Error))
	}
	for i, w := range want {
		if name(fr[i]) != w {
			t.Errorf("frame %d: %s, want %s", i, name(fr[i]), w)
		}
	}
	if uint64(fr[1].PC) != call+8 {
		t.Errorf("call_mill's pc %#x, want %#x (the b,l at %#x + 8)", uint64(fr[1].PC), call+8, call)
	}
}

// setSaveMRP sets Save_MRP_in_frame in the unwind entry of the function
// sym of the test-built binary, as HP's assembler would for
// .CALLINFO SAVE_MRP.
func setSaveMRP(t *testing.T, prog, sym string) {
	t.Helper()
	f, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := unwtab.ReadTable(f)
	if err != nil {
		t.Fatal(err)
	}
	syms, _ := f.Symbols()
	var addr uint64
	for _, s := range syms {
		if s.Name == sym {
			addr = s.Value
		}
	}
	sec := f.Section(unwtab.SectionName)
	f.Close()
	idx := -1
	for i, e := range tab.Entries {
		if e.Start == addr {
			idx = i
		}
	}
	if idx < 0 || sec == nil {
		t.Fatalf("no unwind entry at %s (%#x)", sym, addr)
	}
	b, err := os.ReadFile(prog)
	if err != nil {
		t.Fatal(err)
	}
	w1 := b[sec.Offset+uint64(16*idx)+8:]
	binary.BigEndian.PutUint32(w1, binary.BigEndian.Uint32(w1)|1<<2)
	if err := os.WriteFile(prog, b, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err = elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if tab, _ := unwtab.ReadTable(f); !tab.Entries[idx].Desc.SaveMRPInFrame() || !tab.Entries[idx].Desc.Millicode() {
		t.Fatalf("entry %d after patching: %v", idx, tab.Entries[idx].Desc.Flags())
	}
}

package pa64_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/crossarch/hppa"
	"github.com/coreunwind/coreunwind/internal/refbt"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestImportStub32 crashes a hppa-linux program under qemu-hppa inside
// the linker's import stub for strlen (stub_crash.c clears dp, through
// which the stub loads the PLT entry). A stub has no .PARISC.unwind entry
// and leaves rp and sp alone, so frame 0 is the stub's faulting pc and
// frame 1 the return into measure; the frames must be the ones
// gdb-multiarch printed live, on to main.
func TestImportStub32(t *testing.T) {
	hppa.PA32.Need(t)
	dir := t.TempDir()
	src, _ := filepath.Abs("testdata/progs/stub_crash.c")
	prog := hppa.PA32.Build(t, dir, "stub_crash", src, "-g", "-O1")

	// The stub as objdump disassembles it: the b,l in measure targets
	// it, and the stub is the 5 words addil/ldo/ldw/bv/ldw there.
	out, err := exec.Command(testenv.NeedTool(t, hppa.PA32.Objdump), "-d", prog).Output()
	if err != nil {
		t.Fatal(err)
	}
	measure := out[bytes.Index(out, []byte("<measure>:"))+1:]
	m := regexp.MustCompile(`(?m)^\s+([0-9a-f]+):\s+(?:[0-9a-f]{2} ){4}\s*b,l ([0-9a-f]+) <[^>]*>,rp\n\s+[0-9a-f]+:\s+(?:[0-9a-f]{2} ){4}\s*\S.*\n\s+([0-9a-f]+):`).FindSubmatch(measure)
	if m == nil {
		t.Fatalf("objdump shows no stub call in measure:\n%s", out)
	}
	stub, _ := strconv.ParseUint(string(m[2]), 16, 64)
	ret, _ := strconv.ParseUint(string(m[3]), 16, 64)
	for _, e := range hppa.PA32.ReadelfUnwind(t, prog) {
		if e.Start <= stub && stub <= e.End {
			t.Fatalf("readelf -u: the stub at %#x has an unwind entry %+v", stub, e)
		}
	}

	hppa.CrashUnderGDB(t, dir, prog)
	core := hppa.WriteCore(t, dir)
	btText, err := os.ReadFile(filepath.Join(dir, "live-bt.txt"))
	if err != nil {
		t.Fatal(err)
	}
	live := refbt.ParseGDB(string(btText))
	r, err := analyze.Analyze(core, analyze.Options{Executable: prog, Sysroot: hppa.Sysroot})
	if err != nil {
		t.Fatal(err)
	}
	th := r.Threads[0]
	fr := th.Frames
	if len(fr) < 5 {
		t.Fatalf("%d frames (error %s)", len(fr), deref(th.Error))
	}
	if pc := uint64(fr[0].PC); pc < stub || pc >= stub+20 {
		t.Errorf("frame 0 at %#x, not in the stub [%#x, %#x)", pc, stub, stub+20)
	}
	if uint64(fr[1].PC) != ret || name(fr[1]) != "measure" {
		t.Errorf("frame 1: %#x %s, want measure's return address %#x", uint64(fr[1].PC), name(fr[1]), ret)
	}
	for i, want := range []string{"middle", "middle", "middle", "main"} {
		if name(fr[2+i]) != want {
			t.Errorf("frame %d: %s, want %s", 2+i, name(fr[2+i]), want)
		}
	}
	want, ok := live[th.TID]
	if !ok {
		t.Fatalf("gdb has no thread %d:\n%s", th.TID, btText)
	}
	t.Logf("gdb:\n%s", btText)
	compareThread(t, th, want.Frames, false)
}

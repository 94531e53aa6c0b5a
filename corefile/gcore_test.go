package corefile

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestGcoreCore reads a core written by gdb's gcore from a live process:
// notes after the segments, section headers present, every page dumped.
func TestGcoreCore(t *testing.T) {
	testenv.NeedTool(t, "gdb")
	testenv.NeedTool(t, "gcore")
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	cmd := exec.Command(prog, "wait", "2")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var lines []string
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "ready" {
		lines = append(lines, sc.Text())
	}
	var f crashFacts
	for _, l := range lines {
		fs := strings.Fields(l)
		switch fs[0] {
		case "pid":
			f.PID = atoi(t, fs[1])
		case "main", "tid":
			f.TIDs = append(f.TIDs, atoi(t, fs[1]))
		case "rodata":
			f.RodataAddr, f.Rodata = hexU(t, fs[1]), strings.Join(fs[2:], " ")
		case "global":
			f.GlobalAddr, f.Global = hexU(t, fs[1]), hexU(t, fs[2])
		}
	}
	base := filepath.Join(dir, "gcore")
	if b, err := exec.Command("gcore", "-o", base, itoa(f.PID)).CombinedOutput(); err != nil {
		t.Fatalf("gcore: %v\n%s", err, b)
	}
	c, err := Open(base+"."+itoa(f.PID), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var tids []int
	for _, th := range c.Threads {
		tids = append(tids, th.TID)
	}
	if c.PID != f.PID || !sameSet(tids, f.TIDs) {
		t.Errorf("pid %d threads %v, program printed %d %v", c.PID, tids, f.PID, f.TIDs)
	}
	if got := readU64(t, c, f.GlobalAddr); got != f.Global {
		t.Errorf("global %#x, program printed %#x", got, f.Global)
	}
	buf := make([]byte, len(f.Rodata))
	if err := c.ReadMem(f.RodataAddr, buf); err != nil || string(buf) != f.Rodata {
		t.Errorf("rodata %q %v, program printed %q", buf, err, f.Rodata)
	}
	checkMainModule(t, c, prog)
	if loads := readelfLoads(t, c.Path); len(loads) != len(c.Segments) {
		t.Errorf("%d segments, readelf says %d", len(c.Segments), len(loads))
	}
	// Its headers bound it (what a decompressed gcore core is cut to).
	if f, err := os.Open(c.Path); err == nil {
		st, _ := f.Stat()
		if end, ok := elfExtent(f, st.Size()); !ok || end != st.Size() {
			t.Errorf("extent %d (known %v), want the file's size %d", end, ok, st.Size())
		}
		f.Close()
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

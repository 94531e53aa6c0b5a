package corefile

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// buildC compiles testdata/crash.c into dir/name with extra gcc flags.
func buildC(t testing.TB, dir, name string, flags ...string) string {
	t.Helper()
	testenv.NeedTool(t, "gcc")
	src, err := filepath.Abs("testdata/crash.c")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	args := append([]string{"-g", "-O1", "-pthread", "-Wl,--build-id", "-o", out, src}, flags...)
	if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %v: %v\n%s", args, err, b)
	}
	return out
}

// crashFacts is what the crashing program printed about itself.
type crashFacts struct {
	PID        int
	MainTID    int
	TIDs       []int // all threads, main first
	RodataAddr uint64
	Rodata     string
	GlobalAddr uint64
	Global     uint64
}

// crash runs prog (in its own directory) with args under
// "ulimit -c unlimited" and returns the core it left and what it printed.
func crash(t testing.TB, prog string, args ...string) (string, crashFacts) {
	t.Helper()
	testenv.NeedCores(t)
	dir := filepath.Dir(prog)
	core := filepath.Join(dir, "core")
	os.Remove(core)
	script := "ulimit -c unlimited; exec ./" + filepath.Base(prog) + ` "$@"`
	cmd := exec.Command("sh", append([]string{"-c", script, "sh"}, args...)...)
	cmd.Dir = dir
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err := cmd.Run()
	if err == nil {
		t.Fatalf("%s %v did not crash; output:\n%s", prog, args, stdout.String())
	}
	if _, err := os.Stat(core); err != nil {
		t.Fatalf("no core after crash (%v): %v", cmd.ProcessState, err)
	}
	var f crashFacts
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 2 {
			continue
		}
		switch fs[0] {
		case "pid":
			f.PID = atoi(t, fs[1])
		case "main":
			f.MainTID = atoi(t, fs[1])
			f.TIDs = append([]int{f.MainTID}, f.TIDs...)
		case "tid":
			f.TIDs = append(f.TIDs, atoi(t, fs[1]))
		case "rodata":
			f.RodataAddr, f.Rodata = hexU(t, fs[1]), fs[2]+" "+fs[3]+" "+fs[4]
		case "global":
			f.GlobalAddr, f.Global = hexU(t, fs[1]), hexU(t, fs[2])
		}
	}
	return core, f
}

func atoi(t testing.TB, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func hexU(t testing.TB, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// euNotes is what eu-readelf -n prints about a core, the independent view
// the tests compare against.
type euNotes struct {
	ThreadPIDs []int
	Cursigs    []int
	SigNo      int
	SigCode    int
	FaultAddr  string // as printed, "" if none
	SenderPID  int    // -1 if not printed
	Auxv       map[string]uint64
	Files      []Mapping
	PsPID      int
	Fname      string
	Psargs     string
}

var (
	euNoteHeader = regexp.MustCompile(`^\s+(CORE|LINUX)\s+\d+\s+(\S+)`)
	euFileLine   = regexp.MustCompile(`^\s+([0-9a-f]+)-([0-9a-f]+) ([0-9a-f]+) \d+\s+(.*)$`)
	euAuxLine    = regexp.MustCompile(`^\s+([A-Z_0-9]+): (0x[0-9a-f]+|\d+)`)
	euKV         = regexp.MustCompile(`([a-zA-Z_.]+(?: address)?): (-?[0-9a-fx]+)`)
)

func readEUNotes(t testing.TB, core string) euNotes {
	t.Helper()
	testenv.NeedTool(t, "eu-readelf")
	out, err := exec.Command("eu-readelf", "-n", core).Output()
	if err != nil {
		t.Fatalf("eu-readelf -n %s: %v", core, err)
	}
	n := euNotes{Auxv: map[string]uint64{}, SenderPID: -1}
	cur := ""
	for _, line := range strings.Split(string(out), "\n") {
		if m := euNoteHeader.FindStringSubmatch(line); m != nil {
			cur = m[2]
			continue
		}
		kv := map[string]string{}
		for _, m := range euKV.FindAllStringSubmatch(line, -1) {
			kv[m[1]] = m[2]
		}
		switch cur {
		case "PRSTATUS":
			if v, ok := kv["pid"]; ok {
				n.ThreadPIDs = append(n.ThreadPIDs, atoi(t, v))
			}
			if v, ok := kv["cursig"]; ok {
				n.Cursigs = append(n.Cursigs, atoi(t, v))
			}
		case "PRPSINFO":
			if v, ok := kv["pid"]; ok {
				n.PsPID = atoi(t, v)
			}
			if i := strings.Index(line, "fname: "); i >= 0 {
				rest := line[i+len("fname: "):]
				j := strings.Index(rest, ", psargs: ")
				n.Fname, n.Psargs = rest[:j], strings.TrimRight(rest[j+len(", psargs: "):], " ")
			}
		case "SIGINFO":
			if v, ok := kv["si_signo"]; ok {
				n.SigNo = atoi(t, v)
				n.SigCode = atoi(t, kv["si_code"])
			}
			if v, ok := kv["PID"]; ok && strings.Contains(line, "sender PID") {
				n.SenderPID = atoi(t, v)
			}
			if v, ok := kv["fault address"]; ok {
				n.FaultAddr = v
			}
		case "AUXV":
			if m := euAuxLine.FindStringSubmatch(line); m != nil {
				v, err := strconv.ParseUint(strings.TrimPrefix(m[2], "0x"), map[bool]int{true: 16, false: 10}[strings.HasPrefix(m[2], "0x")], 64)
				if err == nil {
					n.Auxv[m[1]] = v
				}
			}
		case "FILE":
			if m := euFileLine.FindStringSubmatch(line); m != nil {
				n.Files = append(n.Files, Mapping{Start: hexU(t, m[1]), End: hexU(t, m[2]), Offset: hexU(t, m[3]), Path: m[4]})
			}
		}
	}
	return n
}

// readelfLoads returns the PT_LOAD headers as readelf -l -W prints them.
func readelfLoads(t testing.TB, file string) []Segment {
	t.Helper()
	testenv.NeedTool(t, "readelf")
	out, err := exec.Command("readelf", "-l", "-W", file).Output()
	if err != nil {
		t.Fatalf("readelf -l %s: %v", file, err)
	}
	var segs []Segment
	for _, line := range strings.Split(string(out), "\n") {
		fs := strings.Fields(line)
		if len(fs) < 7 || fs[0] != "LOAD" {
			continue
		}
		s := Segment{Offset: hexU(t, fs[1]), Vaddr: hexU(t, fs[2]), Filesz: hexU(t, fs[4]), Memsz: hexU(t, fs[5])}
		flags := strings.Join(fs[6:len(fs)-1], "")
		if strings.Contains(flags, "R") {
			s.Flags |= 4
		}
		if strings.Contains(flags, "W") {
			s.Flags |= 2
		}
		if strings.Contains(flags, "E") {
			s.Flags |= 1
		}
		segs = append(segs, s)
	}
	return segs
}

// readelfBuildID returns the GNU build ID readelf -n reports for file.
func readelfBuildID(t testing.TB, file string) string {
	t.Helper()
	testenv.NeedTool(t, "readelf")
	out, err := exec.Command("readelf", "-n", file).Output()
	if err != nil {
		t.Fatalf("readelf -n %s: %v", file, err)
	}
	m := regexp.MustCompile(`Build ID: ([0-9a-f]+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("readelf -n %s: no build ID", file)
	}
	return string(m[1])
}

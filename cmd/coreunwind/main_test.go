package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/report"
)

const crashC = `
#include <stdlib.h>
__attribute__((noinline)) void die(void) { abort(); }
int main(void) { die(); return 0; }
`

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// Flags may come before or after the positional arguments, and every
// output format is one the schema accepts.
func TestFlagsAnywhereAndJSON(t *testing.T) {
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "abrt", crashC, "-O0", "-g")
	core, _ := testenv.Crash(t, exe)
	out := filepath.Join(dir, "r.json")
	for _, args := range [][]string{
		{"--format", "json", "-o", out, core, exe},
		{core, "--format", "json", exe, "-o", out},
		{core, exe, "--format=json", "--threads", "crashed", "-o", out},
	} {
		code, stdout, stderr := runCLI(args...)
		if code != exitcode.OK || stdout != "" {
			t.Fatalf("%q: exit %d, stdout %q, stderr %s", args, code, stdout, stderr)
		}
		var r report.Report
		b := mustRead(t, out)
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if r.Schema != report.Schema || r.Core.Signal == nil || r.Core.Signal.Name != "SIGABRT" {
			t.Fatalf("%q: schema %q signal %+v", args, r.Schema, r.Core.Signal)
		}
		names := map[string]bool{}
		for _, f := range r.Threads[0].Frames {
			if f.Function != nil {
				names[*f.Function] = true
			}
		}
		if !names["die"] || !names["main"] {
			t.Errorf("%q: crashed thread lacks die/main: %v", args, names)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--format", "xml", "core"},
		{"--threads", "some", "core"},
		{"--max-frames", "0", "core"},
		{"a", "b", "c"},
		{"--no-such-flag", "core"},
		{"--style", "lldb", "core"},
	} {
		if code, _, stderr := runCLI(args...); code != exitcode.Usage || stderr == "" {
			t.Errorf("%q: exit %d (stderr %q), want %d with a message", args, code, stderr, exitcode.Usage)
		}
	}
	if code, stdout, _ := runCLI("--help"); code != exitcode.OK || !strings.Contains(stdout, "Exit codes") {
		t.Errorf("--help: exit %d, output %q", code, stdout)
	}
	if code, stdout, _ := runCLI("--version"); code != exitcode.OK || !strings.HasPrefix(stdout, "coreunwind ") {
		t.Errorf("--version: exit %d, output %q", code, stdout)
	}
	if code, _, stderr := runCLI(filepath.Join(t.TempDir(), "missing")); code != exitcode.NoCore || !strings.Contains(stderr, "missing") {
		t.Errorf("missing core: exit %d, stderr %q", code, stderr)
	}
}

// The tables view lists the same FDEs, in the same order, with the same
// first row, as readelf --debug-dump=frames-interp, for x86_64 and i386
// objects (the i386 one with i386 register names).
func TestTablesMatchReadelf(t *testing.T) {
	t.Run("x86_64", func(t *testing.T) {
		checkTablesMatchReadelf(t, testenv.BuildC(t, t.TempDir(), "tab", crashC, "-O2"), "x86_64", "rsp")
	})
	t.Run("i386", func(t *testing.T) {
		checkTablesMatchReadelf(t, testenv.BuildCross(t, testenv.I386, t.TempDir(), "tab", crashC, "-O2"), "i386", "esp")
	})
}

func checkTablesMatchReadelf(t *testing.T, exe, arch, sp string) {
	code, stdout, stderr := runCLI("tables", exe, "--format", "json")
	if code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var tab report.Tables
	if err := json.Unmarshal([]byte(stdout), &tab); err != nil {
		t.Fatal(err)
	}
	if tab.Arch != arch {
		t.Errorf("arch %q, want %q", tab.Arch, arch)
	}
	readelf := testenv.NeedTool(t, "readelf")
	b, err := exec.Command(readelf, "--debug-dump=frames-interp", exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	fde := regexp.MustCompile(`FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.([0-9a-f]+)`)
	var want [][2]uint64
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if m := fde.FindStringSubmatch(sc.Text()); m != nil {
			lo, _ := strconv.ParseUint(m[1], 16, 64)
			hi, _ := strconv.ParseUint(m[2], 16, 64)
			want = append(want, [2]uint64{lo, hi})
		}
	}
	if len(want) == 0 || len(want) != len(tab.Entries) {
		t.Fatalf("%d entries, readelf lists %d FDEs", len(tab.Entries), len(want))
	}
	for i, e := range tab.Entries {
		if uint64(e.Start) != want[i][0] || uint64(e.End) != want[i][1] || len(e.Records) == 0 {
			t.Errorf("entry %d: %#x..%#x (%d rows), readelf %#x..%#x", i, e.Start, e.End, len(e.Records), want[i][0], want[i][1])
		} else if e.Function != nil && *e.Function == "main" && !strings.Contains(e.Records[0], "cfa="+sp+"+") {
			t.Errorf("main's first row %q: the CFA is not based on %s", e.Records[0], sp)
		}
	}
}

// --unwind-only gives the same frames as the full report, with modules
// and offsets but no names (and neither inlined calls nor tail-call
// frames, which come from DWARF).
func TestUnwindOnly(t *testing.T) {
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "abrt", crashC, "-O2", "-g")
	core, _ := testenv.Crash(t, exe)
	decode := func(args ...string) report.Report {
		code, stdout, stderr := runCLI(append([]string{"--format", "json", core, exe}, args...)...)
		if code != exitcode.OK {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		var r report.Report
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	full, bare := decode(), decode("--unwind-only")
	var want []report.Hex
	for _, f := range full.Threads[0].Frames {
		if !f.Inlined && f.Trust != report.TrustTailCall {
			want = append(want, f.PC)
		}
	}
	if len(bare.Threads[0].Frames) != len(want) {
		t.Fatalf("%d frames, the full report has %d", len(bare.Threads[0].Frames), len(want))
	}
	for i, f := range bare.Threads[0].Frames {
		if f.PC != want[i] || f.Function != nil || f.Module == nil || f.ModuleOffset == nil {
			t.Errorf("frame %d: pc %#x (want %#x) function %v module %v", i, f.PC, want[i], f.Function, f.Module)
		}
	}
}

// --unwind-only text names no function: each frame line gives its
// module and the offset in it, as JSON's module_offset, as eu-stack does.
func TestUnwindOnlyTextOffsets(t *testing.T) {
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "abrt", crashC, "-O2", "-g")
	core, _ := testenv.Crash(t, exe)
	code, js, stderr := runCLI("--format", "json", "--unwind-only", "--threads", "crashed", core, exe)
	if code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	_, text, _ := runCLI("--unwind-only", "--threads", "crashed", core, exe)
	for _, f := range r.Threads[0].Frames {
		if f.Module == nil || f.ModuleOffset == nil {
			continue
		}
		want := fmt.Sprintf("#%-2d 0x%016x in ?? () from %s+%#x\n", f.Index, uint64(f.PC), *f.Module, uint64(*f.ModuleOffset))
		if !strings.Contains(text, want) {
			t.Errorf("no line %q in:\n%s", want, text)
		}
	}
}

// --style hpux prints the HP unwind library's U_STACK_TRACE lines.
func TestStyleHPUX(t *testing.T) {
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "abrt", crashC, "-O0", "-g")
	core, _ := testenv.Crash(t, exe)
	code, stdout, stderr := runCLI(core, exe, "--style", "hpux", "--threads", "crashed")
	if code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	line := regexp.MustCompile(`(?m)^\( ?\d+\) 0x[0-9a-f]+ die \+ 0x[0-9a-f]+ \[` + regexp.QuoteMeta(exe) + `\]$`)
	if !line.MatchString(stdout) {
		t.Errorf("no U_STACK_TRACE line for die in:\n%s", stdout)
	}
}

// A signal another process sent names its sender in the text header;
// abort(), which signals itself, does not.
func TestSignalSender(t *testing.T) {
	testenv.NeedCores(t)
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "waiter", "#include <unistd.h>\nint main(void) { pause(); return 0; }\n", "-O1")
	cmd := exec.Command("sh", "-c", `ulimit -c unlimited; exec ./waiter`)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGSEGV)
	cmd.Wait()
	core := filepath.Join(dir, "core")
	code, stdout, stderr := runCLI(core, exe)
	if code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := fmt.Sprintf("code SI_USER (0), sent by pid %d (uid %d)", os.Getpid(), os.Getuid())
	if !strings.Contains(stdout, want) {
		t.Errorf("header lacks %q:\n%s", want, stdout)
	}

	abrt := testenv.BuildC(t, t.TempDir(), "abrt", crashC, "-O0")
	abrtCore, _ := testenv.Crash(t, abrt)
	if _, stdout, _ := runCLI(abrtCore, abrt); strings.Contains(stdout, "sent by") {
		t.Errorf("abort() names itself as the sender:\n%s", stdout)
	}
}

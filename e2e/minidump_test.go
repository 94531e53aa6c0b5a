package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/refbt"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/minidump"
)

// A minidumpCase is a program's crash as a kernel core and as the
// minidump Breakpad's core2md makes of it, with the references: gdb on
// the core, minidump_stackwalk (with dump_syms's symbols) on the minidump.
type minidumpCase struct {
	crash
	Minidump  string
	Dump      *minidump.Dump
	Symbols   string // a symbol store: NAME/ID/NAME.sym
	Stackwalk []stackwalkThread
	GDB       map[int]*refbt.Thread
}

// crashToMinidump crashes prog (which copies its /proc/self files to
// $MDCRASH_PROC first, as core2md needs), converts the core with core2md
// and runs the references.
func crashToMinidump(t *testing.T, prog string) *minidumpCase {
	t.Helper()
	exe := buildProgram(t, prog)
	proc := t.TempDir()
	c := &minidumpCase{crash: crashProgram(t, exe, []string{"MDCRASH_PROC=" + proc})}
	c.convert(t, []string{testenv.Core2MD(t)}, proc, prog+".dmp")
	c.GDB, _ = runGDB(t, c.Exe, c.Core)
	return c
}

// convert makes the case's minidump NAME from its core with core2md (the
// command and its first arguments) and the procfs copy proc, and reads it
// as minidump_stackwalk does, with dump_syms' symbols of its modules.
func (c *minidumpCase) convert(t *testing.T, core2md []string, proc, name string) {
	t.Helper()
	c.Minidump = filepath.Join(c.Dir, name)
	if out, err := exec.Command(core2md[0], append(core2md[1:], c.Core, proc, c.Minidump)...).CombinedOutput(); err != nil {
		t.Fatalf("core2md: %v\n%s", err, out)
	}
	data, err := os.ReadFile(c.Minidump)
	if err != nil {
		t.Fatal(err)
	}
	if c.Dump, err = minidump.Parse(data); err != nil {
		t.Fatal(err)
	}
	c.Symbols = breakpadSymbols(t, c.Dump)
	c.Stackwalk = runStackwalk(t, c.Minidump, c.Symbols)
}

// breakpadSymbols runs dump_syms on every module file of d and lays the
// .sym files out as a symbol store.
func breakpadSymbols(t *testing.T, d *minidump.Dump) string {
	t.Helper()
	bp := testenv.Breakpad(t)
	store := t.TempDir()
	for _, m := range d.Modules {
		if !strings.HasPrefix(m.Name, "/") {
			continue // linux-gate.so: no file
		}
		out, err := exec.Command(bp.DumpSyms, m.Name).Output()
		if err != nil {
			t.Fatalf("dump_syms %s: %v", m.Name, err)
		}
		head, _, _ := strings.Cut(string(out), "\n")
		f := strings.Fields(head) // MODULE Linux x86_64 ID NAME
		if len(f) != 5 || f[0] != "MODULE" {
			t.Fatalf("dump_syms %s: first line %q", m.Name, head)
		}
		if f[3] != m.DebugID() {
			t.Fatalf("dump_syms %s: debug ID %s, the minidump says %s", m.Name, f[3], m.DebugID())
		}
		dir := filepath.Join(store, f[4], f[3])
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f[4]+".sym"), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return store
}

// stackwalkFrame is one frame of minidump_stackwalk's text output.
type stackwalkFrame struct {
	PC      uint64
	Module  bool   // the frame is in a module ("0x7ffe..." alone is not)
	FoundBy string // "given as instruction pointer in context", "call frame info", "stack scanning", ...
	Raw     string
}

type stackwalkThread struct{ Frames []stackwalkFrame }

var (
	swThreadRE = regexp.MustCompile(`^Thread (\d+)`)
	swFrameRE  = regexp.MustCompile(`^\s*\d+  (\S.*)$`)
	swPCRE     = regexp.MustCompile(`\b(?:rip|eip|pc) = (0x[0-9a-f]+)`)
	swFoundRE  = regexp.MustCompile(`^\s+Found by: (.*)$`)
)

// runStackwalk runs minidump_stackwalk and reads its threads in the
// minidump's order.
func runStackwalk(t *testing.T, dmp, symbols string) []stackwalkThread {
	t.Helper()
	out, err := exec.Command(testenv.Breakpad(t).Stackwalk, dmp, symbols).Output()
	if err != nil {
		t.Fatalf("minidump_stackwalk %s: %v", dmp, err)
	}
	var threads []stackwalkThread
	var cur *stackwalkThread
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case swThreadRE.MatchString(line):
			threads = append(threads, stackwalkThread{})
			cur = &threads[len(threads)-1]
		case line == "":
			cur = nil
		case cur == nil:
		case swFrameRE.MatchString(line):
			what := swFrameRE.FindStringSubmatch(line)[1]
			cur.Frames = append(cur.Frames, stackwalkFrame{Raw: line, Module: !strings.HasPrefix(what, "0x")})
		case len(cur.Frames) == 0:
		case swPCRE.MatchString(line):
			pc, _ := strconv.ParseUint(swPCRE.FindStringSubmatch(line)[1][2:], 16, 64)
			cur.Frames[len(cur.Frames)-1].PC = pc
		case swFoundRE.MatchString(line):
			cur.Frames[len(cur.Frames)-1].FoundBy = swFoundRE.FindStringSubmatch(line)[1]
		}
	}
	if len(threads) == 0 {
		t.Fatalf("minidump_stackwalk printed no threads:\n%s", out)
	}
	return threads
}

// reportPCs is a thread's frames as their pcs; withInlined keeps the
// frames of inlined calls (which repeat their caller's pc), as gdb prints
// them, and tail calls.
func reportPCs(th *reportThread, withInlined bool) []uint64 {
	var out []uint64
	for _, f := range th.Frames {
		pc, ok := f.pc()
		if ok && (withInlined || (!f.Inlined && f.Trust != "tail_call")) {
			out = append(out, pc)
		}
	}
	return out
}

// gdbPCs is gdb's backtrace as its pcs.
func gdbPCs(th *refbt.Thread) []uint64 {
	var out []uint64
	for _, f := range th.Frames {
		if f.HasPC {
			out = append(out, f.PC)
		}
	}
	return out
}

func hexList(pcs []uint64) string {
	s := make([]string, len(pcs))
	for i, pc := range pcs {
		s[i] = fmt.Sprintf("%#x", pc)
	}
	return strings.Join(s, " ")
}

// TestMinidumpMatchesReferences: for every thread of a minidump made by
// Breakpad's core2md from a kernel core, coreunwind's frames on the
// minidump are minidump_stackwalk's wherever it unwound by CFI, and all of
// them are gdb's on the original core. The report's process facts come
// from the minidump's streams.
func TestMinidumpMatchesReferences(t *testing.T) {
	c := crashToMinidump(t, "mdcrash")
	rep, _ := unwindJSON(t, nil, c.Minidump)
	if rep.Core.Format != "minidump" || rep.Core.Arch != "x86_64" {
		t.Errorf("format %q arch %q, want minidump x86_64", rep.Core.Format, rep.Core.Arch)
	}
	if rep.Core.Executable != c.Exe {
		t.Errorf("executable %q, want %q", rep.Core.Executable, c.Exe)
	}
	if s := rep.Core.Signal; s == nil || s.Name != "SIGSEGV" {
		t.Errorf("signal %+v, want SIGSEGV", s)
	}
	if len(rep.Threads) != len(c.Dump.Threads) || len(c.Stackwalk) != len(c.Dump.Threads) || len(c.GDB) != len(c.Dump.Threads) {
		t.Fatalf("%d threads in the report, %d in the minidump, %d from minidump_stackwalk, %d from gdb",
			len(rep.Threads), len(c.Dump.Threads), len(c.Stackwalk), len(c.GDB))
	}
	if rep.Core.CrashedTID != int(c.Dump.Exception.ThreadID) {
		t.Errorf("crashed thread %d, the exception stream says %d", rep.Core.CrashedTID, c.Dump.Exception.ThreadID)
	}
	for i, mt := range c.Dump.Threads {
		th := rep.thread(int(mt.ID))
		if th == nil {
			t.Fatalf("thread %d of the minidump is not in the report", mt.ID)
		}
		if g := c.GDB[int(mt.ID)]; g == nil {
			t.Errorf("thread %d: not in gdb's backtrace", mt.ID)
		} else if got, want := reportPCs(th, true), gdbPCs(g); hexList(got) != hexList(want) {
			t.Errorf("thread %d: coreunwind\n  %s\ngdb on the core\n  %s", mt.ID, hexList(got), hexList(want))
		}
		got := reportPCs(th, false)
		var cfi []uint64
		for _, f := range c.Stackwalk[i].Frames {
			if !f.Module || (f.FoundBy != "given as instruction pointer in context" && f.FoundBy != "call frame info") {
				break
			}
			cfi = append(cfi, f.PC)
		}
		if len(cfi) < 3 {
			t.Errorf("thread %d: minidump_stackwalk unwound only %d frames by CFI: %+v", mt.ID, len(cfi), c.Stackwalk[i].Frames)
		}
		if len(got) < len(cfi) || hexList(got[:len(cfi)]) != hexList(cfi) {
			t.Errorf("thread %d: coreunwind\n  %s\nminidump_stackwalk (by CFI)\n  %s", mt.ID, hexList(got), hexList(cfi))
		}
	}
	crashed := rep.thread(rep.Core.CrashedTID)
	if crashed == nil {
		t.Fatal("no crashed thread")
	}
	expectFunctions(t, crashed, "store", "middle", "outer", "main")
}

// TestMinidumpTriagedWithItsCore: triage takes a minidump beside cores
// and puts it in the bucket of the kernel core of the same crash.
func TestMinidumpTriagedWithItsCore(t *testing.T) {
	c := crashToMinidump(t, "mdcrash")
	dir := t.TempDir()
	for _, f := range []struct{ from, to string }{{c.Core, "core.1"}, {c.Minidump, "crash.dmp"}} {
		if err := os.Rename(f.from, filepath.Join(dir, f.to)); err != nil {
			t.Fatal(err)
		}
	}
	r := runCoreunwind(t, "triage", "--format", "json", dir)
	tri := triageBuckets(t, r)
	if len(tri) != 1 || tri[0].Count != 2 || !strings.HasPrefix(tri[0].Signature, "store") {
		t.Errorf("buckets %+v, want one of 2 cores signed by store\n%s", tri, r.Stdout)
	}
}

type triageBucket struct {
	Signature string `json:"signature"`
	Count     int    `json:"count"`
}

// triageBuckets decodes a successful triage --format json run's buckets.
func triageBuckets(t *testing.T, r run) []triageBucket {
	t.Helper()
	if r.Code != exitOK {
		t.Fatalf("triage: exit %d: %s", r.Code, r.Stderr)
	}
	var tri struct {
		Buckets []triageBucket `json:"buckets"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &tri); err != nil {
		t.Fatalf("triage JSON: %v\n%s", err, r.Stdout)
	}
	return tri.Buckets
}

// triageSignatures runs triage --format json with args and returns its
// buckets' signatures.
func triageSignatures(t *testing.T, args ...string) []string {
	t.Helper()
	var sigs []string
	for _, b := range triageBuckets(t, runCoreunwind(t, append([]string{"triage", "--format", "json"}, args...)...)) {
		sigs = append(sigs, b.Signature)
	}
	return sigs
}

var swNameRE = regexp.MustCompile(`!(\S+) \[(\S+) : (\d+) `)

// TestMinidumpSymbolFiles: with the executable gone, the Breakpad symbol
// store given with --symbols names the crashed thread's first frame
// (function, file, line) as minidump_stackwalk names it from the same
// store, and its STACK CFI records walk every thread through the
// executable's functions to the frames minidump_stackwalk finds by CFI.
// Without --symbols, frame 0 has no name.
func TestMinidumpSymbolFiles(t *testing.T) {
	c := crashToMinidump(t, "mdcrash")
	if err := os.Rename(c.Exe, c.Exe+".gone"); err != nil {
		t.Fatal(err)
	}
	m := swNameRE.FindStringSubmatch(c.Stackwalk[0].Frames[0].Raw)
	if m == nil {
		t.Fatalf("minidump_stackwalk's frame 0 has no name and line: %q", c.Stackwalk[0].Frames[0].Raw)
	}
	without, _ := unwindJSON(t, nil, c.Minidump)
	if th := without.thread(without.Core.CrashedTID); th == nil || len(th.Frames) == 0 || th.Frames[0].Function != "" {
		t.Errorf("without the executable or --symbols, the crashed thread: %+v", th)
	}
	rep, _ := unwindJSON(t, []string{"--symbols", c.Symbols}, c.Minidump)
	crashed := rep.thread(rep.Core.CrashedTID)
	if crashed == nil || len(crashed.Frames) == 0 {
		t.Fatalf("no crashed thread frames in the report")
	}
	f := crashed.Frames[0]
	if f.Function != m[1] || fmt.Sprint(f.Line) != m[3] || filepath.Base(f.File) != m[2] {
		t.Errorf("frame 0 from --symbols: %s at %s:%d; minidump_stackwalk: %s at %s:%s", f.Function, f.File, f.Line, m[1], m[2], m[3])
	}
	// triage signs the minidump by the names the store gives.
	if sig := triageSignatures(t, "--symbols", c.Symbols, c.Minidump); len(sig) != 1 || !strings.HasPrefix(sig[0], "store") {
		t.Errorf("triage --symbols: signatures %q, want one starting with store", sig)
	}
	for i, mt := range c.Dump.Threads {
		th := rep.thread(int(mt.ID))
		if th == nil {
			t.Fatalf("thread %d of the minidump is not in the report", mt.ID)
		}
		var cfi []uint64
		for _, f := range c.Stackwalk[i].Frames {
			if !f.Module || (f.FoundBy != "given as instruction pointer in context" && f.FoundBy != "call frame info") {
				break
			}
			cfi = append(cfi, f.PC)
		}
		got := reportPCs(th, false)
		if len(cfi) < 3 || len(got) < len(cfi) || hexList(got[:len(cfi)]) != hexList(cfi) {
			t.Errorf("thread %d with --symbols: coreunwind\n  %s\nminidump_stackwalk (by CFI)\n  %s", mt.ID, hexList(got), hexList(cfi))
		}
	}
}

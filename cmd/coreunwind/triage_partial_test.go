package main

import (
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/report"
)

// deepStrlenC crashes in strlen under a few recursive calls (signature
// "strlen | parse_record": strlen is a prefix frame), or divides by zero
// (a second bucket).
const deepStrlenC = `
#include <string.h>
struct record { int id; char name[16]; };
static volatile int zero;
__attribute__((noinline)) int parse_record(struct record *r) { return r->id + (int)strlen(r->name); }
__attribute__((noinline)) int load(struct record *r, int depth) { if (depth > 0) return load(r, depth - 1) + 1; return parse_record(r); }
__attribute__((noinline)) int compute_ratio(int a) { return a / zero; }
int main(int argc, char **argv) {
	if (argc > 1 && !strcmp(argv[1], "div")) return compute_ratio(argc);
	return load(argc > 5 ? (struct record *)argv : 0, 4);
}
`

// crashedThread returns the crashing thread of a report.
func crashedThread(t *testing.T, r *report.Report) *report.Thread {
	t.Helper()
	for i := range r.Threads {
		if r.Threads[i].Crashed {
			return &r.Threads[i]
		}
	}
	t.Fatalf("%s: no crashed thread", r.Core.Path)
	return nil
}

// physicalPCs are the pcs of a thread's frames, inlined calls left out.
func physicalPCs(th *report.Thread) []report.Hex {
	var pcs []report.Hex
	for _, f := range th.Frames {
		if !f.Inlined {
			pcs = append(pcs, f.PC)
		}
	}
	return pcs
}

// coreFileOffset is where a process address is stored in a core, and the
// program header of its segment.
func coreFileOffset(t *testing.T, core string, addr uint64) (uint64, *elf.Prog) {
	t.Helper()
	f, err := elf.Open(core)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr < p.Vaddr+p.Filesz {
			return p.Off + addr - p.Vaddr, p
		}
	}
	t.Fatalf("%s: %#x is in no dumped segment", core, addr)
	return 0, nil
}

// writeCut writes the first n bytes of core to path.
func writeCut(t *testing.T, core, path string, n uint64) {
	t.Helper()
	b, err := os.ReadFile(core)
	if err != nil {
		t.Fatal(err)
	}
	if n >= uint64(len(b)) {
		t.Fatalf("cut %d past the end of %s (%d bytes)", n, core, len(b))
	}
	if err := os.WriteFile(path, b[:n], 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTriagePartialCores: copies of a real core cut inside the crashing
// thread's stack are listed as partial, with the reason, in text, JSON
// and JSON lines, and make no bucket: the buckets of the whole cores and
// their number do not change. A copy cut only past the stack is a whole
// core and joins its bucket. The walks of the cut copies stop exactly
// where the cut is: cut at frame k's stack pointer, the walk has frames
// 0..k, the whole core's frames. With --bucket-partial they form buckets.
func TestTriagePartialCores(t *testing.T) {
	work := t.TempDir()
	exe := testenv.BuildC(t, work, "deep", deepStrlenC, "-g", "-O1", "-fno-omit-frame-pointer")
	dir := filepath.Join(work, "cores")
	os.MkdirAll(dir, 0o755)
	for i, arg := range []string{"strlen", "strlen", "strlen", "div"} {
		core, _ := testenv.Crash(t, exe, arg)
		if err := os.Rename(core, filepath.Join(dir, fmt.Sprintf("core.%s.%d", arg, i))); err != nil {
			t.Fatal(err)
		}
	}
	full := filepath.Join(dir, "core.strlen.0")
	code, out, errOut := runCLI("--format", "json", "--threads", "crashed", full, exe)
	if code != exitcode.OK {
		t.Fatalf("the whole core: exit %d\n%s", code, errOut)
	}
	var whole report.Report
	if err := json.Unmarshal([]byte(out), &whole); err != nil {
		t.Fatal(err)
	}
	th := crashedThread(t, &whole)
	pcs := physicalPCs(th)
	var sps []uint64
	for _, f := range th.Frames {
		if !f.Inlined {
			sps = append(sps, uint64(*f.SP))
		}
	}
	if len(pcs) < 6 || th.Frames[0].Function == nil || !strings.Contains(*th.Frames[0].Function, "strlen") {
		t.Fatalf("the whole core's walk: %d frames from %v", len(pcs), th.Frames[0].Function)
	}

	// name -> frames the cut copy's walk must have (0: a whole core).
	cuts := map[string]int{}
	sp0, stack := coreFileOffset(t, full, sps[0])
	writeCut(t, full, filepath.Join(dir, "core.cut-at-frame0"), sp0)
	cuts["core.cut-at-frame0"] = 1
	sp2, _ := coreFileOffset(t, full, sps[2])
	writeCut(t, full, filepath.Join(dir, "core.cut-at-frame2"), sp2)
	cuts["core.cut-at-frame2"] = 3
	writeCut(t, full, filepath.Join(dir, "core.cut-at-stack-start"), stack.Off)
	cuts["core.cut-at-stack-start"] = 1
	// The last dumped segment (the vsyscall page) holds no frame: a cut
	// in it loses nothing the crash's walk reads.
	f, err := elf.Open(full)
	if err != nil {
		t.Fatal(err)
	}
	var last *elf.Prog
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Filesz > 0 {
			last = p
		}
	}
	f.Close()
	for _, sp := range sps {
		if sp >= last.Vaddr && sp < last.Vaddr+last.Memsz+4096 {
			t.Fatalf("the last segment %#x holds the stack", last.Vaddr)
		}
	}
	writeCut(t, full, filepath.Join(dir, "core.cut-past-stack"), last.Off+last.Filesz/2)
	cuts["core.cut-past-stack"] = 0
	partial := []string{"core.cut-at-frame0", "core.cut-at-frame2", "core.cut-at-stack-start"}

	type summary struct {
		Schema          string
		CoresTotal      int  `json:"cores_total"`
		CoresAnalyzed   int  `json:"cores_analyzed"`
		CoresFailed     int  `json:"cores_failed"`
		CoresPartial    int  `json:"cores_partial"`
		PartialBucketed bool `json:"partial_bucketed"`
		Buckets         []struct {
			ID, Signature string
			Count         int
			Cores         []string
			PartialCount  int `json:"partial_count"`
		}
		Partial []struct {
			Core, Reason, Signature string
			Frames                  int
			Bucket                  *string
		}
		Failures []struct{ Core, Error string }
	}
	triageJSON := func(args ...string) summary {
		t.Helper()
		code, out, errOut := runCLI(append([]string{"triage", "--format", "json", dir}, args...)...)
		if code != exitcode.Partial {
			t.Fatalf("triage %v: exit %d, want %d (partial cores)\n%s", args, code, exitcode.Partial, errOut)
		}
		var s summary
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if s.CoresTotal != 8 || s.CoresAnalyzed != 8 || s.CoresFailed != 0 || s.CoresPartial != len(partial) || len(s.Partial) != len(partial) {
			t.Fatalf("triage %v: totals %d analyzed %d failed %d partial %d (%d listed), want 8 8 0 %d\n%s",
				args, s.CoresTotal, s.CoresAnalyzed, s.CoresFailed, s.CoresPartial, len(s.Partial), len(partial), out)
		}
		for i, p := range s.Partial {
			if filepath.Base(p.Core) != partial[i] || p.Frames != cuts[partial[i]] ||
				!strings.Contains(p.Reason, "memory unavailable: core file truncated") {
				t.Errorf("triage %v: partial %d: %+v, want %s with %d frames, cut by the truncation", args, i, p, partial[i], cuts[partial[i]])
			}
		}
		return s
	}
	bucketOf := func(s summary, sig string) (id string, count, partial int, cores []string) {
		for _, b := range s.Buckets {
			if b.Signature == sig {
				return b.ID, b.Count, b.PartialCount, b.Cores
			}
		}
		t.Fatalf("no bucket %q in %+v", sig, s.Buckets)
		return
	}

	// Default: partial cores make no bucket. The bucket of the whole
	// strlen cores has them and the copy cut past the stack; the copy
	// cut at frame 2 still has both signature frames, found by CFI, so
	// it is that bucket's partial evidence, not counted.
	s := triageJSON()
	if s.Schema != "coreunwind.triage/v1" || s.PartialBucketed || len(s.Buckets) != 2 {
		t.Fatalf("schema %s, partial bucketed %v, %d buckets, want 2: %+v", s.Schema, s.PartialBucketed, len(s.Buckets), s.Buckets)
	}
	strlenID, count, partialCount, cores := bucketOf(s, "strlen | parse_record")
	for i := range cores {
		cores[i] = filepath.Base(cores[i])
	}
	slices.Sort(cores)
	if count != 4 || partialCount != 1 || !slices.Equal(cores, []string{"core.cut-past-stack", "core.strlen.0", "core.strlen.1", "core.strlen.2"}) {
		t.Errorf("strlen bucket: count %d (%d partial) cores %v", count, partialCount, cores)
	}
	if _, count, partialCount, _ := bucketOf(s, "compute_ratio"); count != 1 || partialCount != 0 {
		t.Errorf("compute_ratio bucket: count %d, %d partial", count, partialCount)
	}
	for _, p := range s.Partial {
		want := filepath.Base(p.Core) == "core.cut-at-frame2"
		if (p.Bucket != nil) != want || want && *p.Bucket != strlenID {
			t.Errorf("partial %s (signature %q): bucket %v", p.Core, p.Signature, p.Bucket)
		}
	}

	// Text: the summary line counts them, and each is listed with its
	// reason.
	code, out, errOut = runCLI("triage", dir)
	if code != exitcode.Partial {
		t.Fatalf("triage text: exit %d\n%s", code, errOut)
	}
	if head := strings.SplitN(out, "\n", 2)[0]; head != "8 cores: 8 analyzed (3 partial, not bucketed) in 2 buckets, 0 failed" {
		t.Errorf("text summary line %q", head)
	}
	_, section, _ := strings.Cut(out, "\npartial:\n")
	for _, name := range partial {
		line := ""
		for _, l := range strings.Split(section, "\n") {
			if strings.Contains(l, "/"+name+": ") {
				line = l
			}
		}
		where := "in no bucket"
		if name == "core.cut-at-frame2" {
			where = "matches bucket " + strlenID
		}
		if !strings.Contains(line, "core file truncated") || !strings.HasSuffix(line, where+")") {
			t.Errorf("text: partial %s listed as %q, want its reason and %q\n%s", name, line, where, out)
		}
	}

	// JSON lines: every core has its report; a partial one says why, and
	// has no bucket; its frames are the whole core's first frames.
	code, out, errOut = runCLI("triage", "--format", "jsonl", dir)
	if code != exitcode.Partial || !strings.Contains(errOut, "core.cut-at-frame0: partial: ") {
		t.Fatalf("triage jsonl: exit %d\n%s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 8 {
		t.Fatalf("jsonl: %d lines, want 8", len(lines))
	}
	for _, line := range lines {
		var r struct {
			report.Report
			Bucket  *string `json:"bucket"`
			Partial *string `json:"partial"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("jsonl: %v\n%s", err, line)
		}
		name := filepath.Base(r.Core.Path)
		frames, isCut := cuts[name]
		isPartial := isCut && frames > 0
		if isPartial != (r.Partial != nil) || isPartial == (r.Bucket != nil) {
			t.Errorf("jsonl %s: bucket %v partial %v", name, r.Bucket, r.Partial)
			continue
		}
		if !isPartial {
			continue
		}
		got := physicalPCs(crashedThread(t, &r.Report))
		if !strings.Contains(*r.Partial, "core file truncated") || !slices.Equal(got, pcs[:frames]) {
			t.Errorf("jsonl %s: partial %q, pcs %v, want the whole core's first %d: %v", name, *r.Partial, got, frames, pcs[:frames])
		}
	}

	// pprof: every core is a sample; a partial one is labelled so, with
	// no bucket.
	prof := filepath.Join(work, "crashes.pb.gz")
	if code, _, errOut = runCLI("triage", "--format", "pprof", "-o", prof, dir); code != exitcode.Partial {
		t.Fatalf("triage pprof: exit %d\n%s", code, errOut)
	}
	trs := traces(t, prof)
	if len(trs) != 8 {
		t.Fatalf("pprof: %d traces, want 8", len(trs))
	}
	for _, tr := range trs {
		name := filepath.Base(tr.labels["core"])
		isPartial := slices.Contains(partial, name)
		if isPartial != strings.Contains(tr.labels["partial"], "core file truncated") || isPartial == (tr.labels["bucket"] != "") {
			t.Errorf("pprof %s: labels %v", name, tr.labels)
		}
	}

	// --bucket-partial: the partial cores are bucket members. The ones
	// with only strlen make a bucket of their own.
	s = triageJSON("--bucket-partial")
	if !s.PartialBucketed || len(s.Buckets) != 3 {
		t.Fatalf("--bucket-partial: partial bucketed %v, %d buckets, want 3: %+v", s.PartialBucketed, len(s.Buckets), s.Buckets)
	}
	if id, count, partialCount, _ := bucketOf(s, "strlen | parse_record"); id != strlenID || count != 5 || partialCount != 1 {
		t.Errorf("--bucket-partial: strlen | parse_record bucket %s: count %d, %d partial", id, count, partialCount)
	}
	onlyStrlen, count, partialCount, _ := bucketOf(s, "strlen")
	if count != 2 || partialCount != 2 {
		t.Errorf("--bucket-partial: strlen bucket: count %d, %d partial", count, partialCount)
	}
	for _, p := range s.Partial {
		want := onlyStrlen
		if filepath.Base(p.Core) == "core.cut-at-frame2" {
			want = strlenID
		}
		if p.Bucket == nil || *p.Bucket != want {
			t.Errorf("--bucket-partial: partial %s: bucket %v, want %s", p.Core, p.Bucket, want)
		}
	}
}

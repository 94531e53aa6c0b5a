package triage_test

import (
	"archive/tar"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/corefile"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/triage"
)

// bugsProg has four distinct bugs, each in its own function, each
// reachable from two callers, on the main thread or a new one:
//
//	bugs BUG CALLER WHERE   BUG: null|assert|div|dfree  CALLER: a|b  WHERE: main|thread
const bugsProg = `
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct record { int id; char name[16]; };

__attribute__((noinline)) int parse_record(struct record *r) { return r->id + (int)strlen(r->name); }
__attribute__((noinline)) int check_invariant(int n) { assert(n >= 0 && "count went negative"); return n * 2; }
__attribute__((noinline)) int compute_ratio(int a, int b) { return a / b; }
__attribute__((noinline)) void release_buffer(char *p) { free(p); free(p); }

static volatile int zero = 0;
static const char *bug;

__attribute__((noinline)) int run_bug(int salt) {
	if (!strcmp(bug, "null")) return parse_record(salt > 1000 ? (struct record *)&salt : 0) + 1;
	if (!strcmp(bug, "assert")) return check_invariant(-salt - 1) + 1;
	if (!strcmp(bug, "div")) return compute_ratio(salt, zero) + 1;
	char *p = malloc(32 + salt % 7);
	release_buffer(p);
	return 1;
}
__attribute__((noinline)) int caller_a(int x) { return run_bug(x * 3) + 2; }
__attribute__((noinline)) int caller_b(int x) { int r = run_bug(x + 11); return r * 5; }

static const char *caller;
static void *thread_main(void *arg) {
	(void)arg;
	int r = caller[0] == 'a' ? caller_a(7) : caller_b(7);
	return (void *)(long)r;
}

int main(int argc, char **argv) {
	if (argc < 4) return 2;
	bug = argv[1];
	caller = argv[2];
	if (!strcmp(argv[3], "thread")) {
		pthread_t t;
		pthread_create(&t, 0, thread_main, 0);
		pthread_join(t, 0);
		return 0;
	}
	return (long)thread_main(0);
}
`

// otherProg is a second program with two bugs, one of them in a function
// whose name clashes with nothing in bugsProg.
const otherProg = `
#include <stdlib.h>
#include <string.h>
__attribute__((noinline)) int lookup_entry(int **table, int i) { return *table[i]; }
__attribute__((noinline)) void fatal_error(const char *why) { if (why) abort(); }
__attribute__((noinline)) int via_x(int **t) { return lookup_entry(t, 1) + 1; }
__attribute__((noinline)) int via_y(int **t) { int r = lookup_entry(t, 2); return r * 3; }
int main(int argc, char **argv) {
	int *table[4] = {0};
	if (argc < 3) return 2;
	if (!strcmp(argv[1], "abort")) { fatal_error(argv[2]); return 1; }
	return argv[2][0] == 'x' ? via_x(table) : via_y(table);
}
`

// crashCase is one crash: the program, its arguments and the bug it hits.
type crashCase struct {
	prog string
	args []string
	bug  string // "prog/bug": cores of one bug must share a bucket
	fn   string // the function with the bug: the expected signature
}

func cases() []crashCase {
	var cs []crashCase
	for _, b := range []struct{ bug, fn string }{
		{"null", "parse_record"}, {"assert", "check_invariant"}, {"div", "compute_ratio"}, {"dfree", "release_buffer"},
	} {
		for _, v := range [][]string{{"a", "main"}, {"b", "main"}, {"a", "thread"}, {"b", "thread"}} {
			cs = append(cs, crashCase{prog: "bugs", args: append([]string{b.bug}, v...), bug: "bugs/" + b.bug, fn: b.fn})
		}
	}
	for _, v := range []string{"x", "y"} {
		cs = append(cs, crashCase{prog: "other", args: []string{"null", v}, bug: "other/null", fn: "lookup_entry"})
	}
	cs = append(cs, crashCase{prog: "other", args: []string{"abort", "now"}, bug: "other/abort", fn: "fatal_error"})
	return cs
}

// archive is a batch built from real crashes, stored every way triage
// reads: plain and compressed files (zstd, xz, gzip, lz4), systemd-coredump
// names, a tar and a compressed tar; plus a truncated core, a file named
// like a core that is not one, and files that are neither.
type archive struct {
	root     string            // the directory given to triage
	binaries string            // where the executables are (not where they ran)
	bugOf    map[string]string // core name as triage reports it -> prog/bug
	fnOf     map[string]string // core name -> function with the bug
	bad      []string          // names triage must list as failures
}

func buildArchive(t *testing.T) *archive {
	t.Helper()
	testenv.NeedCores(t)
	for _, tool := range []string{"zstd", "xz", "gzip", "lz4"} {
		testenv.NeedTool(t, tool)
	}
	work := t.TempDir()
	a := &archive{root: filepath.Join(work, "crashes"), binaries: filepath.Join(work, "bin"),
		bugOf: map[string]string{}, fnOf: map[string]string{}}
	for _, d := range []string{a.root, a.binaries, filepath.Join(a.root, "plain"), filepath.Join(a.root, "coredump"), filepath.Join(a.root, "misc")} {
		os.MkdirAll(d, 0o755)
	}
	build := filepath.Join(work, "build")
	os.MkdirAll(build, 0o755)
	progs := map[string]string{
		"bugs":  testenv.BuildC(t, build, "bugs", bugsProg, "-g", "-O1", "-fPIE", "-pie", "-fno-omit-frame-pointer"),
		"other": testenv.BuildC(t, build, "other", otherProg, "-g", "-O1", "-fPIE", "-pie"),
	}
	const boot = "0123456789abcdef0123456789abcdef"
	tarDir := filepath.Join(work, "tar")
	os.MkdirAll(tarDir, 0o755)
	var tarMembers, tgzMembers []string
	var firstCore string
	for i, c := range cases() {
		core, _ := testenv.Crash(t, progs[c.prog], c.args...)
		var dest, name string
		switch i % 6 {
		case 0: // plain, in a subdirectory
			dest = filepath.Join(a.root, "plain", fmt.Sprintf("core.%s.%d", c.prog, i))
			name = dest
		case 1: // systemd-coredump: zstd, named with uid, boot id, pid, time
			dest = filepath.Join(a.root, "coredump", fmt.Sprintf("core.%s.1000.%s.%d.%d", c.prog, boot, 4000+i, 1700000000000000+int64(i)*1e6))
			name = dest + ".zst"
		case 2:
			dest = filepath.Join(a.root, "misc", fmt.Sprintf("%s-%d.core", c.prog, i))
			name = dest + ".xz"
		case 3:
			dest = filepath.Join(a.root, "misc", fmt.Sprintf("core.%s.%d", c.prog, i))
			name = dest + ".lz4"
		case 4: // in the plain tar, gzip-compressed inside it
			dest = filepath.Join(tarDir, fmt.Sprintf("core.%s.%d", c.prog, i))
			tarMembers = append(tarMembers, filepath.Base(dest)+".gz")
			name = filepath.Join(a.root, "batch.tar") + ":cores/" + filepath.Base(dest) + ".gz"
		case 5: // in the compressed tar, plain inside it
			dest = filepath.Join(tarDir, fmt.Sprintf("core.%s.%d", c.prog, i))
			tgzMembers = append(tgzMembers, filepath.Base(dest))
			name = filepath.Join(a.root, "more.tar.zst") + ":" + filepath.Base(dest)
		}
		if err := os.Rename(core, dest); err != nil {
			t.Fatal(err)
		}
		if firstCore == "" {
			firstCore = dest
		}
		switch i % 6 {
		case 1:
			run(t, "zstd", "-q", "--rm", dest)
		case 2:
			run(t, "xz", "-0", "-T1", dest)
		case 3:
			run(t, "lz4", "-q", "--rm", dest, dest+".lz4")
		case 4:
			run(t, "gzip", "-1", dest)
		}
		a.bugOf[name], a.fnOf[name] = c.bug, c.fn
	}
	// A truncated core (cut inside its notes) and a "core" that is text.
	full, err := os.ReadFile(firstCore)
	if err != nil {
		t.Fatal(err)
	}
	trunc := filepath.Join(a.root, "misc", "core.truncated")
	os.WriteFile(trunc, full[:300], 0o644)
	// Cut after the crashed thread's registers but before NT_FILE and
	// the memory: frame 0 is known, nothing names it.
	cut := filepath.Join(a.root, "misc", "core.cut-in-notes")
	os.WriteFile(cut, full[:noteOffset(t, firstCore)+1200], 0o644)
	garbage := filepath.Join(tarDir, "core.garbage")
	os.WriteFile(garbage, []byte("this is a note, not a core\n"), 0o644)
	tarMembers = append(tarMembers, "core.garbage")
	a.bad = []string{trunc, cut, filepath.Join(a.root, "batch.tar") + ":cores/core.garbage"}
	// Neither cores nor named like them: passed over silently.
	os.WriteFile(filepath.Join(a.root, "README.txt"), []byte("crashes from the lab\n"), 0o644)

	writeTar(t, filepath.Join(a.root, "batch.tar"), tarDir, "cores/", tarMembers)
	writeTar(t, filepath.Join(a.root, "more.tar"), tarDir, "", tgzMembers)
	run(t, "zstd", "-q", "--rm", filepath.Join(a.root, "more.tar"))

	// The executables move away from where they ran: only --binaries
	// finds them (by build ID, checked by corefile).
	// "bugs" keeps its name; "other" is stored the way debuginfod and
	// build farms store binaries, by build ID under another name: only
	// the build-ID index finds it.
	if err := os.Rename(progs["bugs"], filepath.Join(a.binaries, "bugs")); err != nil {
		t.Fatal(err)
	}
	id, err := corefile.FileBuildID(progs["other"])
	if err != nil || len(id) < 3 {
		t.Fatalf("build ID of other: %q %v", id, err)
	}
	byID := filepath.Join(a.binaries, ".build-id", id[:2], id[2:])
	os.MkdirAll(filepath.Dir(byID), 0o755)
	if err := os.Rename(progs["other"], byID); err != nil {
		t.Fatal(err)
	}
	return a
}

func run(t *testing.T, tool string, args ...string) {
	t.Helper()
	if b, err := exec.Command(tool, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", tool, args, err, b)
	}
}

func writeTar(t *testing.T, path, dir, prefix string, members []string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(f)
	for _, m := range members {
		src, err := os.Open(filepath.Join(dir, m))
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := src.Stat()
		tw.WriteHeader(&tar.Header{Name: prefix + m, Mode: 0o600, Size: fi.Size(), ModTime: fi.ModTime(), Typeflag: tar.TypeReg})
		if _, err := io.Copy(tw, src); err != nil {
			t.Fatal(err)
		}
		src.Close()
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestTriageArchive: the same bug lands in one bucket whatever the caller,
// thread, layout or storage; different bugs land in different buckets;
// the truncated and the non-core file are the failures and the rest is
// processed.
func TestTriageArchive(t *testing.T) {
	a := buildArchive(t)
	skip, _ := triage.NewSkipList(triage.DefaultPatterns())
	cfg := triage.Config{Jobs: 2, Binaries: []string{a.binaries}, Signer: triage.Signer{Skip: skip},
		Analyze: analyze.Options{MaxFrames: 256}}
	coll := triage.NewCollector(0)
	sigOf := map[string]triage.Signature{}
	failed := map[string]string{}
	err := triage.Run([]string{a.root}, cfg, func(r *triage.Result) {
		coll.Add(r)
		if r.Err != nil {
			failed[r.Input.Name] = r.Err.Error()
			return
		}
		sigOf[r.Input.Name] = r.Sig
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range a.bugOf {
		if _, ok := sigOf[name]; !ok {
			t.Errorf("core %s: not analyzed (failure: %q)", name, failed[name])
		}
	}
	for _, name := range a.bad {
		if _, ok := failed[name]; !ok {
			t.Errorf("%s: not listed as a failure", name)
		}
	}
	if len(failed) != len(a.bad) {
		t.Errorf("failures %v, want exactly %v", failed, a.bad)
	}
	bucketOfBug := map[string]string{}
	bugOfBucket := map[string]string{}
	for name, sig := range sigOf {
		bug := a.bugOf[name]
		if bug == "" {
			t.Errorf("analyzed %s, which is not one of the crashes", name)
			continue
		}
		if want := a.fnOf[name]; !signsBug(sig, want, skip) {
			t.Errorf("%s (%s): signature %q, want the function with the bug, %s", name, bug, sig.Text, want)
		}
		if id, ok := bucketOfBug[bug]; ok && id != sig.ID {
			t.Errorf("bug %s split into buckets %s and %s (%s)", bug, id, sig.ID, name)
		}
		bucketOfBug[bug] = sig.ID
		if other, ok := bugOfBucket[sig.ID]; ok && other != bug {
			t.Errorf("bugs %s and %s share bucket %s", bug, other, sig.ID)
		}
		bugOfBucket[sig.ID] = bug
	}
	s := coll.Summary()
	if s.CoresTotal != len(a.bugOf)+len(a.bad) || s.CoresAnalyzed != len(a.bugOf) || s.CoresFailed != len(a.bad) {
		t.Errorf("summary: total %d analyzed %d failed %d; want %d %d %d", s.CoresTotal, s.CoresAnalyzed, s.CoresFailed,
			len(a.bugOf)+len(a.bad), len(a.bugOf), len(a.bad))
	}
	if len(s.Buckets) != 6 {
		t.Errorf("%d buckets, want 6 (4 bugs in one program, 2 in the other)", len(s.Buckets))
	}
	for i, b := range s.Buckets {
		if i > 0 && b.Count > s.Buckets[i-1].Count {
			t.Errorf("buckets not sorted by count")
		}
		sort.Strings(b.Cores)
		if len(b.Cores) != b.Count || b.ExampleCore != b.Cores[0] {
			t.Errorf("bucket %s: count %d, cores %v, example %s", b.ID, b.Count, b.Cores, b.ExampleCore)
		}
		wantSig := map[string]string{"null": "SIGSEGV", "assert": "SIGABRT", "div": "SIGFPE", "dfree": "SIGABRT", "abort": "SIGABRT"}[strings.Split(bugOfBucket[b.ID], "/")[1]]
		if b.Signal == nil || *b.Signal != wantSig {
			t.Errorf("bucket %s (%s): signal %v, want %s", b.ID, bugOfBucket[b.ID], b.Signal, wantSig)
		}
		if len(b.Executables) != 1 || len(b.BuildIDs) != 1 || b.FirstSeen == nil || b.LastSeen == nil || b.LastSeen.Before(*b.FirstSeen) {
			t.Errorf("bucket %s: executables %v build IDs %v seen %v..%v", b.ID, b.Executables, b.BuildIDs, b.FirstSeen, b.LastSeen)
		}
	}
}

// noteOffset is the file offset of a core's first PT_NOTE segment.
func noteOffset(t *testing.T, core string) int {
	f, err := elf.Open(core)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_NOTE {
			return int(p.Off)
		}
	}
	t.Fatal("core has no PT_NOTE")
	return 0
}

// TestTriageI386: i386 cores of bugsProg (static: the cross C library
// has no symbols of its own, a static program carries glibc's) land in
// one bucket per bug, each signed by the function with the bug: the walk
// crosses __kernel_vsyscall, the frame 0 of every abort on i386.
func TestTriageI386(t *testing.T) {
	testenv.NeedCores(t)
	dir := t.TempDir()
	exe := testenv.BuildCross(t, testenv.I386, dir, "bugs", bugsProg, "-g", "-O1", "-static")
	cores := filepath.Join(dir, "cores")
	os.MkdirAll(cores, 0o755)
	fnOf := map[string]string{}
	for _, c := range []struct{ bug, caller, where, fn string }{
		{"null", "a", "main", "parse_record"}, {"null", "b", "thread", "parse_record"},
		{"assert", "a", "main", "check_invariant"}, {"div", "b", "thread", "compute_ratio"},
		{"dfree", "b", "main", "release_buffer"},
	} {
		core, _ := testenv.Crash(t, exe, c.bug, c.caller, c.where)
		name := filepath.Join(cores, strings.Join([]string{"core", c.bug, c.caller, c.where}, "."))
		if err := os.Rename(core, name); err != nil {
			t.Fatal(err)
		}
		fnOf[name] = c.fn
	}
	skip, _ := triage.NewSkipList(triage.DefaultPatterns())
	cfg := triage.Config{Jobs: 2, Binaries: []string{dir}, Signer: triage.Signer{Skip: skip}}
	bucketOf := map[string]string{} // function -> bucket
	n := 0
	err := triage.Run([]string{cores}, cfg, func(r *triage.Result) {
		n++
		if r.Err != nil {
			t.Errorf("%s: %v", r.Input.Name, r.Err)
			return
		}
		if r.Report.Core.Arch != "i386" {
			t.Errorf("%s: arch %q", r.Input.Name, r.Report.Core.Arch)
		}
		want := fnOf[r.Input.Name]
		if !signsBug(r.Sig, want, skip) {
			t.Errorf("%s: signature %q, want the function with the bug, %s", r.Input.Name, r.Sig.Text, want)
		}
		if id, ok := bucketOf[want]; ok && id != r.Sig.ID {
			t.Errorf("%s split into buckets %s and %s", want, id, r.Sig.ID)
		}
		bucketOf[want] = r.Sig.ID
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, id := range bucketOf {
		ids[id] = true
	}
	if n != len(fnOf) || len(ids) != 4 {
		t.Errorf("%d results, %d buckets; want %d and 4 (one per bug): %v", n, len(ids), len(fnOf), bucketOf)
	}
}

// signsBug reports whether a signature names the function with the bug
// as the bugs program has them: the function ends the signature, before
// it only prefix frames (parse_record crashes in strlen); a failed
// assertion's signature is its message, which names the function.
func signsBug(sig triage.Signature, fn string, skip *triage.SkipList) bool {
	f := sig.Frames
	if strings.HasPrefix(sig.Text, "assertion: ") {
		return len(f) == 1 && strings.HasPrefix(sig.Text, "assertion: bugs.c: "+fn+": Assertion `")
	}
	return len(f) > 0 && f[len(f)-1] == fn && !slices.ContainsFunc(f[:len(f)-1], func(s string) bool { return !skip.Prefix(s) })
}

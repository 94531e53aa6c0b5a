// Package triagetest builds what triage's tests and the Beam pipeline's
// tests triage: an archive of real kernel cores of programs with known
// bugs, stored every way triage reads cores, with bad inputs among them.
package triagetest

import (
	"archive/tar"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// BugsProg has four distinct bugs, each in its own function, each
// reachable from two callers, on the main thread or a new one:
//
//	bugs BUG CALLER WHERE   BUG: null|assert|div|dfree  CALLER: a|b  WHERE: main|thread
const BugsProg = `
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

// OtherProg is a second program with two bugs, one of them in a function
// whose name clashes with nothing in bugsProg.
const OtherProg = `
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

// cases are the crashes of an Archive.
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

// Archive is a batch built from real crashes, stored every way triage
// reads: plain and compressed files (zstd, xz, gzip, lz4), systemd-coredump
// names, a tar and a compressed tar; plus a truncated core, a file named
// like a core that is not one, and files that are neither.
type Archive struct {
	Root     string            // the directory given to triage
	Binaries string            // where the executables are (not where they ran)
	BugOf    map[string]string // core name as triage reports it -> prog/bug
	FnOf     map[string]string // core name -> function with the bug
	Bad      []string          // names triage must list as failures
}

// BuildArchive crashes BugsProg and OtherProg in every way cases lists
// and stores their cores as Archive says, with the bad inputs among them
// (the truncated core sorts between the good ones of misc/, the garbage
// member sits in the middle of batch.tar).
func BuildArchive(t *testing.T) *Archive {
	t.Helper()
	testenv.NeedCores(t)
	for _, tool := range []string{"zstd", "xz", "gzip", "lz4"} {
		testenv.NeedTool(t, tool)
	}
	work := t.TempDir()
	a := &Archive{Root: filepath.Join(work, "crashes"), Binaries: filepath.Join(work, "bin"),
		BugOf: map[string]string{}, FnOf: map[string]string{}}
	for _, d := range []string{a.Root, a.Binaries, filepath.Join(a.Root, "plain"), filepath.Join(a.Root, "coredump"), filepath.Join(a.Root, "misc")} {
		os.MkdirAll(d, 0o755)
	}
	build := filepath.Join(work, "build")
	os.MkdirAll(build, 0o755)
	progs := map[string]string{
		"bugs":  testenv.BuildC(t, build, "bugs", BugsProg, "-g", "-O1", "-fPIE", "-pie", "-fno-omit-frame-pointer"),
		"other": testenv.BuildC(t, build, "other", OtherProg, "-g", "-O1", "-fPIE", "-pie"),
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
			dest = filepath.Join(a.Root, "plain", fmt.Sprintf("core.%s.%d", c.prog, i))
			name = dest
		case 1: // systemd-coredump: zstd, named with uid, boot id, pid, time
			dest = filepath.Join(a.Root, "coredump", fmt.Sprintf("core.%s.1000.%s.%d.%d", c.prog, boot, 4000+i, 1700000000000000+int64(i)*1e6))
			name = dest + ".zst"
		case 2:
			dest = filepath.Join(a.Root, "misc", fmt.Sprintf("%s-%d.core", c.prog, i))
			name = dest + ".xz"
		case 3:
			dest = filepath.Join(a.Root, "misc", fmt.Sprintf("core.%s.%d", c.prog, i))
			name = dest + ".lz4"
		case 4: // in the plain tar, gzip-compressed inside it
			dest = filepath.Join(tarDir, fmt.Sprintf("core.%s.%d", c.prog, i))
			tarMembers = append(tarMembers, filepath.Base(dest)+".gz")
			name = filepath.Join(a.Root, "batch.tar") + ":cores/" + filepath.Base(dest) + ".gz"
		case 5: // in the compressed tar, plain inside it
			dest = filepath.Join(tarDir, fmt.Sprintf("core.%s.%d", c.prog, i))
			tgzMembers = append(tgzMembers, filepath.Base(dest))
			name = filepath.Join(a.Root, "more.tar.zst") + ":" + filepath.Base(dest)
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
		a.BugOf[name], a.FnOf[name] = c.bug, c.fn
	}
	// A truncated core (cut inside its notes) and a "core" that is text.
	full, err := os.ReadFile(firstCore)
	if err != nil {
		t.Fatal(err)
	}
	trunc := filepath.Join(a.Root, "misc", "core.truncated")
	os.WriteFile(trunc, full[:300], 0o644)
	// Cut after the crashed thread's registers but before NT_FILE and
	// the memory: frame 0 is known, nothing names it.
	cut := filepath.Join(a.Root, "misc", "core.cut-in-notes")
	os.WriteFile(cut, full[:noteOffset(t, firstCore)+1200], 0o644)
	garbage := filepath.Join(tarDir, "core.garbage")
	os.WriteFile(garbage, []byte("this is a note, not a core\n"), 0o644)
	// In the middle of the tar: the members after it must still be read.
	k := len(tarMembers) / 2
	tarMembers = append(tarMembers[:k:k], append([]string{"core.garbage"}, tarMembers[k:]...)...)
	a.Bad = []string{trunc, cut, filepath.Join(a.Root, "batch.tar") + ":cores/core.garbage"}
	// Neither cores nor named like them: passed over silently.
	os.WriteFile(filepath.Join(a.Root, "README.txt"), []byte("crashes from the lab\n"), 0o644)

	writeTar(t, filepath.Join(a.Root, "batch.tar"), tarDir, "cores/", tarMembers)
	writeTar(t, filepath.Join(a.Root, "more.tar"), tarDir, "", tgzMembers)
	run(t, "zstd", "-q", "--rm", filepath.Join(a.Root, "more.tar"))

	// The executables move away from where they ran: only --binaries
	// finds them (by build ID, checked by corefile).
	// "bugs" keeps its name; "other" is stored the way debuginfod and
	// build farms store binaries, by build ID under another name: only
	// the build-ID index finds it.
	if err := os.Rename(progs["bugs"], filepath.Join(a.Binaries, "bugs")); err != nil {
		t.Fatal(err)
	}
	id, err := corefile.FileBuildID(progs["other"])
	if err != nil || len(id) < 3 {
		t.Fatalf("build ID of other: %q %v", id, err)
	}
	byID := filepath.Join(a.Binaries, ".build-id", id[:2], id[2:])
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

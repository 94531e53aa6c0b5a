package triagetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// CrashReports is a directory of crashes of BugsProg's four bugs (null,
// assert, div, dfree), each crash once as a core file, as a minidump
// (Breakpad's core2md over the core; the null bug's gzip-compressed, as
// .dmp.gz), as a systemd-coredump entry of one
// journal file, as an apport .crash file and as an ABRT problem
// directory, and the null bug's once more as a .crash file in a tar
// archive: four bugs, 21 inputs.
type CrashReports struct {
	Root     string   // the directory given to triage
	Binaries string   // where the executable is (its cores are there too)
	Exe      string   // the executable
	Fns      []string // the function of each bug, null's first
	Bugs     []string // the bug's name, BugsProg's first argument, of each
	Inputs   int      // how many crashes Root holds
}

// BuildCrashReports crashes BugsProg and wraps its cores in the crash
// reports, each as its own tool writes them (testenv: Core2MD over a
// procfs synthesized from the core, WriteJournal, ApportReport,
// WriteProblemDir), with facts that differ by format: the journal
// entries' units (FN.service), host web1 and package prog 1.2-3; the
// .crash files' command line (EXE FN) and package bugs 2.0; the problem
// directories' host abrthost and package bugs 2.0; the minidumps'
// command line, the core's (EXE BUG a main, as NT_PRPSINFO's 80 bytes
// keep it).
func BuildCrashReports(t *testing.T) *CrashReports {
	t.Helper()
	testenv.NeedCores(t)
	core2md := testenv.Core2MD(t)
	root := t.TempDir()
	r := &CrashReports{Root: root, Binaries: filepath.Join(root, "cores"), Inputs: 21}
	os.MkdirAll(r.Binaries, 0o755)
	r.Exe = testenv.BuildC(t, r.Binaries, "bugs", BugsProg, "-g", "-O1", "-fPIE", "-pie", "-fno-omit-frame-pointer")
	var entries [][]testenv.JournalField
	for i, bug := range []struct{ name, fn, sig, signame string }{
		{"null", "parse_record", "11", "SIGSEGV"}, {"assert", "check_invariant", "6", "SIGABRT"},
		{"div", "compute_ratio", "8", "SIGFPE"}, {"dfree", "release_buffer", "6", "SIGABRT"},
	} {
		path, _ := testenv.Crash(t, r.Exe, bug.name, "a", "main")
		core, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		kept := filepath.Join(r.Binaries, "core."+bug.name)
		if err := os.Rename(path, kept); err != nil {
			t.Fatal(err)
		}
		r.Fns, r.Bugs = append(r.Fns, bug.fn), append(r.Bugs, bug.name)
		proc := t.TempDir()
		testenv.ProcFromCore(t, kept, proc)
		dmp := filepath.Join(root, "minidumps", bug.name+".dmp")
		os.MkdirAll(filepath.Dir(dmp), 0o755)
		if out, err := exec.Command(core2md, kept, proc, dmp).CombinedOutput(); err != nil {
			t.Fatalf("core2md %s: %v\n%s", kept, err, out)
		}
		if i == 0 {
			gzipFile(t, dmp) // kept as crash collectors keep uploads
		}
		e := testenv.CoredumpEntry(i, 100+i, r.Exe, core)
		for j := range e {
			switch e[j].Name {
			case "COREDUMP_UNIT":
				e[j].Value = []byte(bug.fn + ".service")
			case "COREDUMP_SIGNAL":
				e[j].Value = []byte(bug.sig)
			case "COREDUMP_SIGNAL_NAME":
				e[j].Value = []byte(bug.signame)
			}
		}
		entries = append(entries, e)
		apport := testenv.ApportReport(map[string]string{"ProblemType": "Crash", "ExecutablePath": r.Exe,
			"ProcCmdline": r.Exe + " " + bug.fn, "Package": "bugs 2.0", "Signal": bug.sig}, core)
		os.WriteFile(filepath.Join(root, fmt.Sprintf("_bugs.%d.crash", i)), apport, 0o644)
		testenv.WriteProblemDir(t, filepath.Join(root, "abrt", fmt.Sprintf("ccpp-%d", i)), map[string]string{
			"analyzer": "abrt-ccpp", "executable": r.Exe, "hostname": "abrthost", "pkg_name": "bugs", "pkg_version": "2.0"}, core)
		if i == 0 {
			writeOneMemberTar(t, filepath.Join(root, "reports.tar"), "var/crash/_bugs.crash", apport)
		}
	}
	testenv.WriteJournal(t, root, "system.journal", nil, entries)
	return r
}

// gzipFile replaces path by path.gz, its gzip-compressed content.
func gzipFile(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".gz", b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
}

// writeOneMemberTar writes a tar archive of one member.
func writeOneMemberTar(t *testing.T, path, name string, data []byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tw := tar.NewWriter(f)
	tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
	tw.Write(data)
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
}

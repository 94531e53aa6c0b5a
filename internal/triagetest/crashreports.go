package triagetest

import (
	"archive/tar"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// CrashReports is a directory of crashes of BugsProg's null and div bugs,
// each crash once as a core file, as a systemd-coredump entry of one
// journal file, as an apport .crash file and as an ABRT problem
// directory, and the null bug's once more as a .crash file in a tar
// archive: two bugs, nine inputs.
type CrashReports struct {
	Root     string   // the directory given to triage
	Binaries string   // where the executable is (its cores are there too)
	Exe      string   // the executable
	Fns      []string // the function of each bug, null's first
	Inputs   int      // how many crashes Root holds
}

// BuildCrashReports crashes BugsProg and wraps its cores in the crash
// reports, each as its own tool writes them (testenv: WriteJournal,
// ApportReport, WriteProblemDir), with facts that differ by format: the
// journal entries' units (FN.service), host web1 and package prog
// 1.2-3; the .crash files' command line (EXE FN) and package bugs 2.0;
// the problem directories' host abrthost and package bugs 2.0.
func BuildCrashReports(t *testing.T) *CrashReports {
	t.Helper()
	testenv.NeedCores(t)
	root := t.TempDir()
	r := &CrashReports{Root: root, Binaries: filepath.Join(root, "cores"), Inputs: 9}
	os.MkdirAll(r.Binaries, 0o755)
	r.Exe = testenv.BuildC(t, r.Binaries, "bugs", BugsProg, "-g", "-O1", "-fPIE", "-pie", "-fno-omit-frame-pointer")
	var entries [][]testenv.JournalField
	for i, bug := range []struct{ name, fn string }{{"null", "parse_record"}, {"div", "compute_ratio"}} {
		path, _ := testenv.Crash(t, r.Exe, bug.name, "a", "main")
		core, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path, filepath.Join(r.Binaries, "core."+bug.name)); err != nil {
			t.Fatal(err)
		}
		r.Fns = append(r.Fns, bug.fn)
		e := testenv.CoredumpEntry(i, 100+i, r.Exe, core)
		for j := range e {
			if e[j].Name == "COREDUMP_UNIT" {
				e[j].Value = []byte(bug.fn + ".service")
			}
		}
		entries = append(entries, e)
		apport := testenv.ApportReport(map[string]string{"ProblemType": "Crash", "ExecutablePath": r.Exe,
			"ProcCmdline": r.Exe + " " + bug.fn, "Package": "bugs 2.0", "Signal": "11"}, core)
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

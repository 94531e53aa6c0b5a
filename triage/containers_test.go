package triage_test

import (
	"archive/tar"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/internal/triagetest"
	"github.com/coreunwind/coreunwind/triage"
)

// A directory mixing core files, minidumps, a journal file with
// systemd-coredump entries, apport .crash files and ABRT problem
// directories of the same four bugs (and a tar archive holding another
// .crash file): exactly four buckets, one per bug, whatever each crash
// came in, each bucket saying where its crashes came from and what
// their crash reports record.
func TestTriageCrashReports(t *testing.T) {
	cr := triagetest.BuildCrashReports(t)
	skip, _ := triage.NewSkipList(triage.DefaultPatterns())
	cfg := triage.Config{Jobs: 2, Binaries: []string{cr.Binaries}, Signer: triage.Signer{Skip: skip},
		Analyze: analyze.Options{MaxFrames: 256}}
	coll := triage.NewCollector(0)
	var records []triage.Record
	err := triage.Run([]string{cr.Root}, cfg, func(r *triage.Result) {
		coll.Add(r)
		records = append(records, r.Record())
		if r.Err != nil {
			t.Errorf("%s: %v", r.Input.Name, r.Err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	s := coll.Summary()
	if s.CoresTotal != cr.Inputs || s.CoresAnalyzed != cr.Inputs || len(s.Buckets) != len(cr.Fns) {
		var got []string
		for _, b := range s.Buckets {
			got = append(got, fmt.Sprintf("%q (%d: %q)", b.Signature, b.Count, b.Sources))
		}
		t.Fatalf("%d inputs, %d analyzed, %d buckets; want %d, %d, %d (one per bug); buckets:\n%s", s.CoresTotal, s.CoresAnalyzed, len(s.Buckets),
			cr.Inputs, cr.Inputs, len(cr.Fns), strings.Join(got, "\n"))
	}
	for _, b := range s.Buckets {
		// The bug's function is the first of the bucket's stack that
		// is one (the assertion's signature is its words alone, the
		// null bug's starts with strlen).
		i := slices.IndexFunc(b.Stack, func(f string) bool { return slices.Contains(cr.Fns, f) })
		fn := ""
		if i >= 0 {
			fn = b.Stack[i]
			i = slices.Index(cr.Fns, fn)
		}
		if i < 0 {
			t.Errorf("bucket %s: signature %q is no bug's", b.ID, b.Signature)
			continue
		}
		// A core file, a minidump, a journal entry, a .crash file, a
		// problem directory; and the archive's .crash file for the
		// first bug.
		wantCount := 5 + map[int]int{0: 1}[i]
		if b.Count != wantCount || !slices.Equal(b.Sources, []string{"abrt", "apport", "core", "journal", "minidump"}) ||
			!slices.Equal(b.Units, []string{fn + ".service"}) || !slices.Equal(b.Hostnames, []string{"abrthost", "web1"}) ||
			!slices.Equal(b.Packages, []string{"bugs 2.0", "prog 1.2-3"}) || len(b.CommandLines) != 3 ||
			!slices.Contains(b.CommandLines, cr.Exe+" "+fn) || !slices.Contains(b.CommandLines, cr.Exe+" --serve") {
			t.Errorf("bucket %s (%s): count %d, want %d; sources %q units %q hosts %q packages %q command lines %q",
				b.ID, fn, b.Count, wantCount, b.Sources, b.Units, b.Hostnames, b.Packages, b.CommandLines)
		}
		// The .crash file's, the journal entry's, and the minidump's:
		// the crashed process's (./bugs BUG a main).
		if !slices.Contains(b.CommandLines, "./bugs "+cr.Bugs[i]+" a main") {
			t.Errorf("bucket %s (%s): command lines %q, none the minidump's", b.ID, fn, b.CommandLines)
		}
		for _, c := range b.Cores {
			if strings.HasSuffix(c, "system.journal") || strings.Contains(c, "container-") || strings.HasSuffix(c, "/coredump") {
				t.Errorf("bucket %s lists %s: want a journal entry as FILE.journal:SEQNUM, a problem directory as itself", b.ID, c)
			}
		}
	}
	checkMergeOrder(t, records)
}

// TestArchivedCrashReportTime: a .crash file in a tar archive that
// records no Date is as old as the archive says the file is, not as its
// extraction (which made each run, and a Beam worker, date it anew).
func TestArchivedCrashReportTime(t *testing.T) {
	dir := filepath.Join("..", "testdata", "cores", "segv-static")
	core, err := os.ReadFile(filepath.Join(dir, "core"))
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := filepath.Abs(filepath.Join(dir, "segv"))
	crash := testenv.ApportReport(map[string]string{"ProblemType": "Crash", "ExecutablePath": exe}, core)
	root := t.TempDir()
	when := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	f, err := os.Create(filepath.Join(root, "reports.tar"))
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(f)
	tw.WriteHeader(&tar.Header{Name: "var/crash/_segv.crash", Mode: 0o644, Size: int64(len(crash)), ModTime: when, Typeflag: tar.TypeReg})
	tw.Write(crash)
	if err := errors.Join(tw.Close(), f.Close()); err != nil {
		t.Fatal(err)
	}
	var times []time.Time
	err = triage.Run([]string{root}, triage.Config{Jobs: 1}, func(r *triage.Result) {
		if r.Err != nil {
			t.Errorf("%s: %v", r.Input.Name, r.Err)
		}
		times = append(times, r.Input.Time)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(times) != 1 || !times[0].Equal(when) {
		t.Errorf("times %v, want the member's, %v", times, when)
	}
}

package triage_test

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/internal/triagetest"
	"github.com/coreunwind/coreunwind/triage"
)

// TestTriageArchive: the same bug lands in one bucket whatever the caller,
// thread, layout or storage; different bugs land in different buckets;
// the truncated and the non-core file are the failures and the rest is
// processed.
func TestTriageArchive(t *testing.T) {
	a := triagetest.BuildArchive(t)
	skip, _ := triage.NewSkipList(triage.DefaultPatterns())
	cfg := triage.Config{Jobs: 2, Binaries: []string{a.Binaries}, Signer: triage.Signer{Skip: skip},
		Analyze: analyze.Options{MaxFrames: 256}}
	coll := triage.NewCollector(0)
	sigOf := map[string]triage.Signature{}
	failed := map[string]string{}
	var records []triage.Record
	err := triage.Run([]string{a.Root}, cfg, func(r *triage.Result) {
		coll.Add(r)
		records = append(records, r.Record())
		if r.Err != nil {
			failed[r.Input.Name] = r.Err.Error()
			return
		}
		sigOf[r.Input.Name] = r.Sig
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range a.BugOf {
		if _, ok := sigOf[name]; !ok {
			t.Errorf("core %s: not analyzed (failure: %q)", name, failed[name])
		}
	}
	for _, name := range a.Bad {
		if _, ok := failed[name]; !ok {
			t.Errorf("%s: not listed as a failure", name)
		}
	}
	if len(failed) != len(a.Bad) {
		t.Errorf("failures %v, want exactly %v", failed, a.Bad)
	}
	bucketOfBug := map[string]string{}
	bugOfBucket := map[string]string{}
	for name, sig := range sigOf {
		bug := a.BugOf[name]
		if bug == "" {
			t.Errorf("analyzed %s, which is not one of the crashes", name)
			continue
		}
		if want := a.FnOf[name]; !signsBug(sig, want, skip) {
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
	checkMergeOrder(t, records)
	s := coll.Summary()
	if s.CoresTotal != len(a.BugOf)+len(a.Bad) || s.CoresAnalyzed != len(a.BugOf) || s.CoresFailed != len(a.Bad) {
		t.Errorf("summary: total %d analyzed %d failed %d; want %d %d %d", s.CoresTotal, s.CoresAnalyzed, s.CoresFailed,
			len(a.BugOf)+len(a.Bad), len(a.BugOf), len(a.Bad))
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

// TestTriageI386: i386 cores of triagetest.BugsProg (static: the cross C library
// has no symbols of its own, a static program carries glibc's) land in
// one bucket per bug, each signed by the function with the bug: the walk
// crosses __kernel_vsyscall, the frame 0 of every abort on i386.
func TestTriageI386(t *testing.T) {
	testenv.NeedCores(t)
	dir := t.TempDir()
	exe := testenv.BuildCross(t, testenv.I386, dir, "bugs", triagetest.BugsProg, "-g", "-O1", "-static")
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
	// The crash's words (an abort message) join the key before the frames.
	if len(f) > 1 && strings.HasPrefix(f[0], "abort: ") {
		f = f[1:]
	}
	if strings.HasPrefix(sig.Text, "assertion: ") {
		return len(f) == 1 && strings.HasPrefix(sig.Text, "assertion: bugs.c: "+fn+": Assertion `")
	}
	return len(f) > 0 && f[len(f)-1] == fn && !slices.ContainsFunc(f[:len(f)-1], func(s string) bool { return !skip.Prefix(s) })
}

// checkMergeOrder: collectors that saw the records in another order, in
// parts merged after a trip through their encoding (as a distributed
// runner's partial combines), give the summary one collector gives,
// byte for byte. MaxListed 1 makes the parts and the merge cut lists.
func checkMergeOrder(t *testing.T, records []triage.Record) {
	t.Helper()
	summary := func(c *triage.Collector) string {
		var b strings.Builder
		if err := triage.WriteJSON(&b, c.Summary()); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	one := triage.NewCollector(1)
	for _, r := range records {
		one.AddRecord(r)
	}
	want := summary(one)
	parts := []*triage.Collector{triage.NewCollector(1), triage.NewCollector(1), triage.NewCollector(1)}
	for i := len(records) - 1; i >= 0; i-- {
		parts[i%3].AddRecord(records[i])
	}
	merged := triage.NewCollector(1)
	for i := len(parts) - 1; i >= 0; i-- {
		b, err := parts[i].MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var back triage.Collector
		if err := back.UnmarshalJSON(b); err != nil {
			t.Fatal(err)
		}
		merged.Merge(&back)
	}
	if got := summary(merged); got != want {
		t.Errorf("merged collectors' summary differs from one collector's:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(want, `"cores_omitted"`) {
		t.Errorf("no bucket cut its list at 1 core: the merge of cut lists is not tested\n%s", want)
	}
}

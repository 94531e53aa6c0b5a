package triage_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/internal/triagetest"
	"github.com/coreunwind/coreunwind/triage"
)

// bugCore is a real core of triagetest.BugsProg and the function with
// its bug (what its signature must end in).
type bugCore struct {
	path, fn string
}

// crashBugs builds triagetest.BugsProg into dir and crashes it once per
// bug named (null, div, assert, dfree; caller a, main thread); the cores
// are dir/core.BUG. The executable stays in dir.
func crashBugs(t *testing.T, dir string, bugs ...string) []bugCore {
	t.Helper()
	testenv.NeedCores(t)
	exe := testenv.BuildC(t, dir, "bugs", triagetest.BugsProg, "-g", "-O1", "-fPIE", "-pie", "-fno-omit-frame-pointer")
	fnOf := map[string]string{"null": "parse_record", "div": "compute_ratio", "assert": "check_invariant", "dfree": "release_buffer"}
	var out []bugCore
	for _, bug := range bugs {
		core, _ := testenv.Crash(t, exe, bug, "a", "main")
		p := filepath.Join(dir, "core."+bug)
		if err := os.Rename(core, p); err != nil {
			t.Fatal(err)
		}
		out = append(out, bugCore{path: p, fn: fnOf[bug]})
	}
	return out
}

// runTriage triages paths with the default skip list, the binaries
// searched in bins, and returns the signatures of the analyzed cores and
// the errors of the failed ones, by name.
func runTriage(t *testing.T, cfg triage.Config, bins string, paths ...string) (sigs map[string]triage.Signature, failed map[string]error) {
	t.Helper()
	skip, _ := triage.NewSkipList(triage.DefaultPatterns())
	cfg.Jobs, cfg.Signer = 2, triage.Signer{Skip: skip}
	cfg.Analyze = analyze.Options{MaxFrames: 256}
	if bins != "" {
		cfg.Binaries = []string{bins}
	}
	sigs, failed = map[string]triage.Signature{}, map[string]error{}
	err := triage.Run(paths, cfg, func(r *triage.Result) {
		if r.Err != nil {
			failed[r.Input.Name] = r.Err
			return
		}
		sigs[r.Input.Name] = r.Sig
	})
	if err != nil {
		t.Fatal(err)
	}
	return sigs, failed
}

// lastFrame is the frame a signature ends in ("" for none).
func lastFrame(s triage.Signature) string {
	if len(s.Frames) == 0 {
		return ""
	}
	return s.Frames[len(s.Frames)-1]
}

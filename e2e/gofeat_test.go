package e2e

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// goFeatReport is the part of coreunwind's JSON report these tests read:
// what it says of a goroutine beyond its stack, and the crash line.
type goFeatReport struct {
	Crash *struct {
		Summary string   `json:"summary"`
		Kind    string   `json:"kind"`
		Details []string `json:"details"`
	} `json:"crash"`
	Threads []struct {
		TID int `json:"tid"`
	} `json:"threads"`
	Goroutines []struct {
		ID             uint64            `json:"id"`
		State          string            `json:"state"`
		Crashed        bool              `json:"crashed"`
		WaitMinutes    *int64            `json:"wait_minutes"`
		LockedToThread bool              `json:"locked_to_thread"`
		LockedTID      *int              `json:"locked_tid"`
		Labels         map[string]string `json:"labels"`
		CreatedBy      *struct {
			Function  string  `json:"function"`
			Goroutine *uint64 `json:"goroutine"`
			File      string  `json:"file"`
			Line      int     `json:"line"`
		} `json:"created_by"`
		Panics []struct {
			Value     string `json:"value"`
			Type      string `json:"type"`
			Recovered bool   `json:"recovered"`
		} `json:"panics"`
	} `json:"goroutines"`
}

// crashGofeat crashes gofeat built as prog with GOTRACEBACK=crash (and
// env) and returns the crash and coreunwind's JSON report of it.
func crashGofeat(t *testing.T, prog string, env []string, args ...string) (crash, *goFeatReport) {
	t.Helper()
	exe := buildProgram(t, prog)
	dir := t.TempDir()
	// Up to two minutes: the "wait" mode sleeps one.
	core, out := testenv.CrashWithin(t, 2*time.Minute, dir, exe, append([]string{"GOTRACEBACK=crash"}, env...), args...)
	c := crash{Dir: dir, Exe: exe, Core: core, Output: string(out)}
	_, r := unwindJSON(t, nil, c.Core, c.Exe)
	var rep goFeatReport
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("JSON report: %v", err)
	}
	return c, &rep
}

// goHeader is a goroutine's header line as the runtime prints it
// (GOTRACEBACK=crash adds gp=, m=, mp=) and as coreunwind's text report
// does (the thread and "crashed" after the brackets).
var (
	runtimeGoHeader = regexp.MustCompile(`^goroutine (\d+)(?: gp=\S+)?(?: m=\S+)?(?: mp=\S+)? \[(.*)\]:$`)
	reportGoHeader  = regexp.MustCompile(`^goroutine (\d+) \[(.*)\](?: \(.*\))?:$`)
)

// goBlock is what a traceback says of one goroutine besides its frames.
type goBlock struct {
	bracket   string // inside the header's brackets
	createdBy string // the "created by" line and the file line under it
}

// goBlocks reads the goroutines' headers and creators from a traceback.
func goBlocks(out string, header *regexp.Regexp) map[int]goBlock {
	blocks := map[int]goBlock{}
	id := -1
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		if m := header.FindStringSubmatch(line); m != nil {
			id, _ = strconv.Atoi(m[1])
			blocks[id] = goBlock{bracket: m[2]}
			continue
		}
		if id >= 0 && strings.HasPrefix(line, "created by ") && i+1 < len(lines) {
			b := blocks[id]
			b.createdBy = line + "\n" + lines[i+1]
			blocks[id] = b
		}
		if line == "" {
			id = -1
		}
	}
	return blocks
}

// TestGoroutineHeaders: each goroutine's header and creator, as the
// runtime printed them at the crash (GODEBUG=tracebacklabels=1 prints
// the pprof labels): the state, "locked to thread", the labels, and
// "created by FUNC in goroutine N" with the go statement's file, line
// and offset. The JSON says the same, and names the thread a goroutine
// is locked to.
func TestGoroutineHeaders(t *testing.T) {
	t.Parallel()
	c, rep := crashGofeat(t, "gofeat", []string{"GODEBUG=tracebacklabels=1"}, "labels")
	want := goBlocks(c.Output, runtimeGoHeader)
	text := runCoreunwind(t, "--no-group", c.Core, c.Exe)
	got := goBlocks(text.Stdout, reportGoHeader)
	if len(want) < 9 {
		t.Fatalf("the runtime printed %d goroutines; output:\n%s", len(want), truncate(c.Output, 4000))
	}
	for id, w := range want {
		g, ok := got[id]
		if !ok {
			t.Errorf("goroutine %d missing from the text report", id)
			continue
		}
		if g != w {
			t.Errorf("goroutine %d:\ncoreunwind [%s]\n%s\nthe runtime [%s]\n%s", id, g.bracket, g.createdBy, w.bracket, w.createdBy)
		}
	}
	tids := map[int]bool{}
	for _, th := range rep.Threads {
		tids[th.TID] = true
	}
	labelled, locked := 0, 0
	for _, g := range rep.Goroutines {
		if fmt.Sprint(g.Labels) == "map[role:worker shard:7]" {
			labelled++
		}
		if g.LockedToThread {
			locked++
			if g.LockedTID == nil || !tids[*g.LockedTID] {
				t.Errorf("goroutine %d is locked to thread %v, not one of the core's", g.ID, g.LockedTID)
			}
		}
		if g.ID != 1 && (g.CreatedBy == nil || g.CreatedBy.Goroutine == nil || g.CreatedBy.Line == 0) {
			t.Errorf("goroutine %d: created by %+v", g.ID, g.CreatedBy)
		}
	}
	if labelled != 2 || locked != 1 {
		t.Errorf("%d goroutines with the labels (want 2), %d locked (want 1)", labelled, locked)
	}
}

// TestGoLabelsGo123: Go 1.23 keeps a goroutine's pprof labels in a map
// (Go 1.24 on in a sorted slice): coreunwind reads both.
func TestGoLabelsGo123(t *testing.T) {
	t.Parallel()
	_, rep := crashGofeat(t, "gofeat-go1.23", nil, "labels")
	labelled := 0
	for _, g := range rep.Goroutines {
		if fmt.Sprint(g.Labels) == "map[role:worker shard:7]" {
			labelled++
		}
	}
	if labelled != 2 {
		t.Errorf("%d goroutines with the labels, want 2", labelled)
	}
}

// runtimeCrashLine is the runtime's account of the crash in a Go
// program's dying output: its first lines up to the first blank one,
// from the first "panic: " or "fatal error: ".
func runtimeCrashLine(out string) string {
	i := strings.Index(out, "panic: ")
	if j := strings.Index(out, "fatal error: "); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i < 0 {
		return ""
	}
	s, _, _ := strings.Cut(out[i:], "\n\n")
	return strings.TrimRight(s, "\n")
}

// TestGoCrashLine: the report's crash line is the runtime's own: the
// panic (a chain with "[recovered]" as the runtime prints it) or the
// fatal error (runtime.throw's, runtime.fatal's message: concurrent map
// writes, a deadlock, a mutex unlocked twice).
func TestGoCrashLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ mode, kind string }{
		{"labels", "go_panic"}, {"repanic", "go_panic"},
		{"mapwrites", "go_fatal_error"}, {"deadlock", "go_fatal_error"}, {"throw", "go_fatal_error"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			c, rep := crashGofeat(t, "gofeat", nil, tc.mode)
			want := runtimeCrashLine(c.Output)
			if want == "" {
				t.Fatalf("the runtime printed no panic or fatal error:\n%s", truncate(c.Output, 4000))
			}
			if rep.Crash == nil || rep.Crash.Summary != want || rep.Crash.Kind != tc.kind {
				t.Fatalf("crash %+v; the runtime printed %q (kind %s)", rep.Crash, want, tc.kind)
			}
			if !slices.Contains(rep.Crash.Details, "SIGABRT (SI_TKILL)") {
				t.Errorf("the signal's summary is not among the details: %q", rep.Crash.Details)
			}
		})
	}
}

// TestGoPanicInFlight: a goroutine whose panic is still running its
// deferred calls when the process dies (here of SIGQUIT) keeps the
// value it panicked with: coreunwind names the error's concrete type
// and its message, which the program printed itself.
func TestGoPanicInFlight(t *testing.T) {
	t.Parallel()
	c, rep := crashGofeat(t, "gofeat", nil, "inflight")
	_, after, ok := strings.Cut(c.Output, "error: ")
	msg, _, _ := strings.Cut(after, "\n")
	if !ok || msg == "" {
		t.Fatalf("the program printed no error:\n%s", truncate(c.Output, 4000))
	}
	found := false
	for _, g := range rep.Goroutines {
		for _, p := range g.Panics {
			found = found || p.Type == "*errors.errorString" && p.Value == msg && !p.Recovered
		}
	}
	if !found {
		t.Errorf("no goroutine panicking with *errors.errorString %q: %+v", msg, rep.Goroutines)
	}
}

// TestGoWaitMinutes: goroutines a GC saw blocked, a minute before the
// crash: the runtime prints "[chan receive, 1 minutes]", and so does
// coreunwind (its JSON: wait_minutes 1). The program sleeps 61 s.
func TestGoWaitMinutes(t *testing.T) {
	t.Parallel()
	c, rep := crashGofeat(t, "gofeat", nil, "wait", "61")
	want := goBlocks(c.Output, runtimeGoHeader)
	text := runCoreunwind(t, "--no-group", c.Core, c.Exe)
	got := goBlocks(text.Stdout, reportGoHeader)
	waited := 0
	for id, w := range want {
		if w.bracket == "chan receive, 1 minutes" {
			waited++
		}
		if got[id].bracket != w.bracket {
			t.Errorf("goroutine %d: coreunwind [%s], the runtime [%s]", id, got[id].bracket, w.bracket)
		}
	}
	if waited != 3 {
		t.Errorf("the runtime printed %d goroutines waiting 1 minute, want 3:\n%s", waited, truncate(c.Output, 4000))
	}
	for _, g := range rep.Goroutines {
		if g.State == "chan receive" && (g.WaitMinutes == nil || *g.WaitMinutes != 1) {
			t.Errorf("goroutine %d: wait_minutes %v, want 1", g.ID, g.WaitMinutes)
		}
	}
}

// TestGoroutineGroups: goroutines with the same stack print once, under
// "N goroutines (ids) [state]:", the crashed one first and alone;
// --no-group prints each.
func TestGoroutineGroups(t *testing.T) {
	t.Parallel()
	c, gs := crashGoparked(t, "goparked", "nilmap")
	var workers []string
	for _, g := range gs {
		if g.frame("main.worker") != nil {
			workers = append(workers, strconv.Itoa(g.ID))
		}
	}
	grouped := runCoreunwind(t, c.Core, c.Exe).Stdout
	header := fmt.Sprintf("\n3 goroutines (%s) [chan receive]:\n", strings.Join(workers, ", "))
	if len(workers) != 3 || strings.Count(grouped, header) != 1 || strings.Contains(grouped, "\ngoroutine "+workers[0]+" ") {
		t.Errorf("the text report does not group goroutines %v under %q:\n%s", workers, header, truncate(grouped, 6000))
	}
	first := regexp.MustCompile(`(?m)^(goroutine \d+|\d+ goroutines) .*$`).FindString(grouped)
	if !strings.HasPrefix(first, "goroutine 1 [running]") || !strings.HasSuffix(first, "(crashed):") {
		t.Errorf("the first goroutine printed is %q, not the crashed one", first)
	}
	each := runCoreunwind(t, "--no-group", c.Core, c.Exe).Stdout
	for _, id := range workers {
		if !strings.Contains(each, "\ngoroutine "+id+" [chan receive]:\n") {
			t.Errorf("--no-group does not print goroutine %s alone", id)
		}
	}
}

package triage

import (
	"strconv"
	"testing"

	"github.com/coreunwind/coreunwind/report"
)

// goReportOf is a Go program's report whose crashed goroutine (id)
// panicked with msg through the frames names; the crashed thread holds
// the same frames, as a panic with GOTRACEBACK=crash leaves it.
func goReportOf(id uint64, msg string, names ...string) *report.Report {
	r := reportOf("SIGABRT", names...)
	r.Goroutines = []report.Goroutine{
		{ID: id, Crashed: true, Frames: r.Threads[1].Frames},
		{ID: id + 1, State: "chan receive", Frames: []report.Frame{{Function: report.Ptr("main.worker")}}},
	}
	r.Crash = &report.Crash{Kind: "signal", Details: []string{"goroutine " + strconv.FormatUint(id, 10) + " panicked: " + msg}}
	return r
}

func TestSignGoPanic(t *testing.T) {
	skip, err := NewSkipList(DefaultPatterns())
	if err != nil {
		t.Fatal(err)
	}
	nilmap := []string{"runtime.raise", "runtime.dieFromSignal", "runtime.crash", "runtime.fatalpanic", "runtime.gopanic", "runtime.mapassign_faststr", "main.bump", "main.main", "runtime.main", "runtime.goexit"}
	for _, tc := range []struct {
		name  string
		depth int
		rep   *report.Report
		want  string
	}{
		{"nil map", 1, goReportOf(1, "assignment to entry in nil map", nilmap...), "panic: assignment to entry in nil map | main.bump"},
		{"deeper", 2, goReportOf(1, "assignment to entry in nil map", nilmap...), "panic: assignment to entry in nil map | main.bump | main.main"},
		{"internal runtime", 1, goReportOf(7, "runtime error: index out of range [5] with length 3",
			"runtime.gopanic", "runtime.goPanicIndex", "internal/runtime/maps.(*Map).getWithKey", "runtime/internal/atomic.Load", "main.get", "main.main"),
			"panic: runtime error: index out of range [N] with length N | main.get"},
		{"custom", 1, goReportOf(1, `main.myErr("bad record at 0xc000012345")`, "runtime.gopanic", "main.load"), `panic: main.myErr("bad record at 0xN") | main.load`},
		{"all runtime", 1, goReportOf(1, "boom", "runtime.gopanic", "runtime.main"), "panic: boom | runtime.gopanic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := (&Signer{Skip: skip, Depth: tc.depth}).Sign(tc.rep)
			if s.Text != tc.want {
				t.Errorf("Sign = %q, want %q", s.Text, tc.want)
			}
		})
	}
	// The same panic on another goroutine, reached from another caller,
	// is the same signature.
	a := (&Signer{Skip: skip}).Sign(goReportOf(1, "assignment to entry in nil map", nilmap...))
	b := (&Signer{Skip: skip}).Sign(goReportOf(18, "assignment to entry in nil map", "runtime.gopanic", "runtime.mapassign_faststr", "main.bump", "runtime.goexit"))
	if a.ID != b.ID || a.Text != b.Text {
		t.Errorf("same panic, two goroutines: %+v and %+v", a, b)
	}
	// Another goroutine's panic value, or none, leaves the thread's
	// frames to decide.
	r := goReportOf(1, "assignment to entry in nil map", nilmap...)
	r.Crash.Details = []string{"goroutine 2 panicked: assignment to entry in nil map"}
	if s := (&Signer{Skip: skip}).Sign(r); s.Text != "runtime.mapassign_faststr" {
		t.Errorf("panic of another goroutine: %q", s.Text)
	}
	r.Crash = nil
	if s := (&Signer{Skip: skip}).Sign(r); s.Text != "runtime.mapassign_faststr" {
		t.Errorf("no crash analysis: %q", s.Text)
	}
}

func TestNormalizeGoPanic(t *testing.T) {
	for in, want := range map[string]string{
		"assignment to entry in nil map":                                   "assignment to entry in nil map",
		"runtime error: invalid memory address or nil pointer dereference": "runtime error: invalid memory address or nil pointer dereference",
		"runtime error: slice bounds out of range [:12] with capacity 4":   "runtime error: slice bounds out of range [:N] with capacity N",
		"runtime error: index out of range [-1]":                           "runtime error: index out of range [-N]",
		"(a *errors.errorString)":                                          "(a *errors.errorString)",
		"int64 overflow at 0XDEADbeef ":                                    "int64 overflow at 0xN",
	} {
		if got := NormalizeGoPanic(in); got != want {
			t.Errorf("NormalizeGoPanic(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzNormalizeGoPanic(f *testing.F) {
	f.Add("runtime error: index out of range [5] with length 3")
	f.Add("assignment to entry in nil map")
	f.Add(`main.myErr("id 0x1f, 42")`)
	f.Fuzz(func(t *testing.T, s string) {
		n := NormalizeGoPanic(s)
		if len(n) > maxNameLen {
			t.Fatalf("%d bytes normalized to %d", len(s), len(n))
		}
		if NormalizeGoPanic(n) != n {
			t.Fatalf("not stable: %q -> %q", s, n)
		}
	})
}

package triage

import (
	"testing"

	"github.com/coreunwind/coreunwind/report"
)

// goFatalReportOf is a Go program's report of a fatal error whose
// crashed goroutine has the frames names (none: the scheduler found it,
// on the crashed thread's own frames only).
func goFatalReportOf(msg string, names ...string) *report.Report {
	r := reportOf("SIGABRT", names...)
	if len(names) > 0 {
		r.Goroutines = []report.Goroutine{{ID: 5, Crashed: true, Frames: r.Threads[1].Frames}}
	}
	r.Crash = &report.Crash{Kind: report.KindGoFatalError, Summary: "fatal error: " + msg}
	return r
}

func TestSignGoFatalError(t *testing.T) {
	skip, err := NewSkipList(DefaultPatterns())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		rep  *report.Report
		want string
	}{
		{"map writes", goFatalReportOf("concurrent map writes", "runtime.systemstack_switch", "runtime.fatalthrow", "runtime.fatal",
			"internal/runtime/maps.fatal", "runtime.mapassign_fast64", "main.writer", "runtime.goexit"),
			"fatal error: concurrent map writes | main.writer"},
		{"mutex", goFatalReportOf("sync: unlock of unlocked mutex", "runtime.fatal", "internal/sync.fatal",
			"internal/sync.(*Mutex).unlockSlow", "sync.(*Mutex).Unlock", "main.unlockTwice", "main.main"),
			"fatal error: sync: unlock of unlocked mutex | main.unlockTwice"},
		{"deadlock", goFatalReportOf("all goroutines are asleep - deadlock!", "runtime.raise", "runtime.fatal", "runtime.checkdead", "runtime.schedule", "runtime.mstart"),
			"fatal error: all goroutines are asleep - deadlock!"},
		{"deadlock, no goroutine", goFatalReportOf("all goroutines are asleep - deadlock!"),
			"fatal error: all goroutines are asleep - deadlock!"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := (&Signer{Skip: skip}).Sign(tc.rep)
			if s.Text != tc.want {
				t.Errorf("Sign = %q, want %q", s.Text, tc.want)
			}
		})
	}
}

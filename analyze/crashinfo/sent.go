package crashinfo

import (
	"fmt"

	"github.com/coreunwind/coreunwind/report"
)

// sent explains a signal a process sent (kill, tgkill, sigqueue) with no
// fault below it: no instruction of the thread caused it, so none is
// decoded. It reports false for a signal the process raised itself that
// the analysis explains otherwise (abort's SIGABRT).
func (a *analysis) sent() bool {
	s := a.in.Signal
	what := s.Name
	if s.CodeName != "" {
		what += " (" + s.CodeName + ")"
	}
	if s.SenderPID != a.in.PID {
		a.c.Kind = "sent_signal"
		a.c.Sender = &report.Sender{PID: s.SenderPID, UID: s.SenderUID}
		a.c.Summary = fmt.Sprintf("%s sent by pid %d (uid %d)", what, s.SenderPID, s.SenderUID)
		a.c.Details = append(a.c.Details, "another process sent the signal: the thread was interrupted wherever it was, no instruction of it faulted")
		return true
	}
	switch s.Name {
	case "SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGTRAP":
		a.c.Kind = "signal"
		a.c.Summary = fmt.Sprintf("%s raised by the process itself (raise, kill or tgkill), not by the kernel for a fault", what)
		a.c.Details = append(a.c.Details, "no signal frame on the stack holds a fault; a handler that raised the signal while it was blocked and then returned leaves the thread at the instruction that faulted first, with its siginfo lost")
		a.decode()
		return true
	}
	return false
}

// reraised says that a handler caught the fault the analysis explains
// and raised the signal that killed the process.
func (a *analysis) reraised() {
	r := a.in.Reraised
	a.c.Reraised = r
	killer := r.Signal.Name
	if r.Signal.CodeName != nil {
		killer += " " + *r.Signal.CodeName
	}
	if r.Signal.Number == r.Fault.Number {
		a.c.Summary += fmt.Sprintf(" (re-raised by the handler as %s)", killer)
	} else {
		a.c.Summary += fmt.Sprintf(" (the handler then raised %s)", killer)
	}
	a.c.Details = append(a.c.Details, fmt.Sprintf(
		"a signal handler caught this fault and raised %s, which killed the process: the fault and its registers are what the kernel saved in the signal frame #%d, the instruction is frame #%d's",
		killer, r.SignalFrame, r.FaultFrame))
}

// frameNo is the report's number of a.in.Frames[i].
func (a *analysis) frameNo(i int) int {
	if r := a.in.Reraised; r != nil {
		return r.FaultFrame + i
	}
	return i
}

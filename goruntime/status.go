package goruntime

// Status is a g's atomicstatus, the runtime's _G constants (scan bit
// cleared).
type Status uint32

const (
	StatusIdle      Status = 0
	StatusRunnable  Status = 1
	StatusRunning   Status = 2
	StatusSyscall   Status = 3
	StatusWaiting   Status = 4
	StatusDead      Status = 6
	StatusCopystack Status = 8
	StatusPreempted Status = 9
	// StatusDeadExtra (Go 1.26's _Gdeadextra) is a dead g kept for a
	// cgo callback on a thread Go did not create (an extra m).
	StatusDeadExtra Status = 11
	statusScan      Status = 0x1000
)

// statusNames are the runtime's gStatusStrings.
var statusNames = map[Status]string{
	StatusIdle:      "idle",
	StatusRunnable:  "runnable",
	StatusRunning:   "running",
	StatusSyscall:   "syscall",
	StatusWaiting:   "waiting",
	StatusDead:      "dead",
	StatusCopystack: "copystack",
	StatusPreempted: "preempted",
}

// Dead reports whether the g is unused: dead, or dead and kept for an
// extra m. The runtime's traceback leaves both out.
func (s Status) Dead() bool { return s == StatusDead || s == StatusDeadExtra }

// String is the status as the runtime's traceback prints it ("???" for
// one it does not know, as the runtime does).
func (s Status) String() string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	return "???"
}

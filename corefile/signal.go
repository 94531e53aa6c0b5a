package corefile

import (
	"debug/elf"
	"fmt"
)

// Signal is the signal that terminated the process.
type Signal struct {
	Number int // signal number as the target's kernel numbers it
	Code   int // si_code
	Errno  int // si_errno
	// Addr is si_addr, meaningful when HasAddr: the faulting address for
	// kernel-generated SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGTRAP.
	Addr    uint64
	HasAddr bool
	// SenderPID and SenderUID identify the sender of a signal sent with
	// kill, tkill/tgkill or sigqueue (Code SI_USER, SI_TKILL, SI_QUEUE).
	SenderPID, SenderUID int
	HasSender            bool
	// Detailed is true when the signal came from NT_SIGINFO. Otherwise
	// only Number is known (from pr_cursig) and Code means nothing.
	Detailed bool

	machine elf.Machine // selects the signal numbering (parisc differs)
}

// si_code values common to all signals (include/uapi/asm-generic/siginfo.h).
const (
	siUser     = 0
	siKernel   = 0x80
	siQueue    = -1
	siTimer    = -2
	siMesgq    = -3
	siAsyncio  = -4
	siSigio    = -5
	siTkill    = -6
	siDethread = -7
	siAsyncnl  = -60
)

// genericSignalNames is the numbering of x86, arm, arm64, ia64, riscv,
// s390, powerpc and the asm-generic ports. The name tables are arrays
// indexed by number: data in the executable, where maps would be built
// by every process at start.
var genericSignalNames = [...]string{
	1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP",
	6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1",
	11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM",
	16: "SIGSTKFLT", 17: "SIGCHLD", 18: "SIGCONT", 19: "SIGSTOP", 20: "SIGTSTP",
	21: "SIGTTIN", 22: "SIGTTOU", 23: "SIGURG", 24: "SIGXCPU", 25: "SIGXFSZ",
	26: "SIGVTALRM", 27: "SIGPROF", 28: "SIGWINCH", 29: "SIGIO", 30: "SIGPWR",
	31: "SIGSYS",
}

// parisc's numbering (arch/parisc/include/uapi/asm/signal.h, kernels since
// 4.18; older kernels had SIGEMT 7, SIGSYS 12, SIGXCPU 33, SIGXFSZ 34).
var pariscSignalNames = [...]string{
	1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP",
	6: "SIGABRT", 7: "SIGSTKFLT", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGBUS",
	11: "SIGSEGV", 12: "SIGXCPU", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM",
	16: "SIGUSR1", 17: "SIGUSR2", 18: "SIGCHLD", 19: "SIGPWR", 20: "SIGVTALRM",
	21: "SIGPROF", 22: "SIGIO", 23: "SIGWINCH", 24: "SIGSTOP", 25: "SIGTSTP",
	26: "SIGCONT", 27: "SIGTTIN", 28: "SIGTTOU", 29: "SIGURG", 30: "SIGXFSZ",
	31: "SIGSYS",
}

func (s *Signal) names() []string {
	if s.machine == elf.EM_PARISC {
		return pariscSignalNames[:]
	}
	return genericSignalNames[:]
}

// Name returns the signal's name ("SIGSEGV"); numbers without a name
// (real-time signals) print as gdb does: "SIG37".
func (s *Signal) Name() string {
	if names := s.names(); s.Number > 0 && s.Number < len(names) {
		return names[s.Number]
	}
	return fmt.Sprintf("SIG%d", s.Number)
}

func (s *Signal) isFaultSignal() bool {
	switch s.Name() {
	case "SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGTRAP":
		return true
	}
	return false
}

var genericCodeNames = map[int]string{
	siUser: "SI_USER", siKernel: "SI_KERNEL", siQueue: "SI_QUEUE", siTimer: "SI_TIMER",
	siMesgq: "SI_MESGQ", siAsyncio: "SI_ASYNCIO", siSigio: "SI_SIGIO", siTkill: "SI_TKILL",
	siDethread: "SI_DETHREAD", siAsyncnl: "SI_ASYNCNL",
}

// Per-signal si_code names for codes > 0, index = code - 1
// (include/uapi/asm-generic/siginfo.h).
var signalCodeNames = map[string][]string{
	"SIGILL": {"ILL_ILLOPC", "ILL_ILLOPN", "ILL_ILLADR", "ILL_ILLTRP", "ILL_PRVOPC",
		"ILL_PRVREG", "ILL_COPROC", "ILL_BADSTK", "ILL_BADIADDR", "__ILL_BREAK", "__ILL_BNDMOD"},
	"SIGFPE": {"FPE_INTDIV", "FPE_INTOVF", "FPE_FLTDIV", "FPE_FLTOVF", "FPE_FLTUND",
		"FPE_FLTRES", "FPE_FLTINV", "FPE_FLTSUB", "__FPE_DECOVF", "__FPE_DECDIV",
		"__FPE_DECERR", "__FPE_INVASC", "__FPE_INVDEC", "FPE_FLTUNK", "FPE_CONDTRAP"},
	"SIGSEGV": {"SEGV_MAPERR", "SEGV_ACCERR", "SEGV_BNDERR", "SEGV_PKUERR", "SEGV_ACCADI",
		"SEGV_ADIDERR", "SEGV_ADIPERR", "SEGV_MTEAERR", "SEGV_MTESERR", "SEGV_CPERR"},
	"SIGBUS":  {"BUS_ADRALN", "BUS_ADRERR", "BUS_OBJERR", "BUS_MCEERR_AR", "BUS_MCEERR_AO"},
	"SIGTRAP": {"TRAP_BRKPT", "TRAP_TRACE", "TRAP_BRANCH", "TRAP_HWBKPT", "TRAP_UNK", "TRAP_PERF"},
	"SIGCHLD": {"CLD_EXITED", "CLD_KILLED", "CLD_DUMPED", "CLD_TRAPPED", "CLD_STOPPED", "CLD_CONTINUED"},
	"SIGIO":   {"POLL_IN", "POLL_OUT", "POLL_MSG", "POLL_ERR", "POLL_PRI", "POLL_HUP"},
	"SIGSYS":  {"SYS_SECCOMP", "SYS_USER_DISPATCH"},
}

// CodeName returns the symbolic si_code ("SEGV_MAPERR", "SI_USER",
// "SI_TKILL", "SI_KERNEL"); "" when the code is not known (no NT_SIGINFO)
// and the decimal value when it has no name.
func (s *Signal) CodeName() string {
	if !s.Detailed {
		return ""
	}
	if s.Code > 0 && s.Code != siKernel {
		if names := signalCodeNames[s.Name()]; s.Code <= len(names) {
			// ia64 reuses SEGV code 4 for __SEGV_PSTKOVF.
			if s.machine == elf.EM_IA_64 && s.Name() == "SIGSEGV" && s.Code == 4 {
				return "__SEGV_PSTKOVF"
			}
			return names[s.Code-1]
		}
	}
	if n, ok := genericCodeNames[s.Code]; ok {
		return n
	}
	return fmt.Sprint(s.Code)
}

// String describes the signal as a one-line summary, e.g.
// "SIGSEGV (SEGV_MAPERR) at 0x0".
func (s *Signal) String() string {
	out := s.Name()
	if c := s.CodeName(); c != "" {
		out += " (" + c + ")"
	}
	if s.HasAddr {
		out += fmt.Sprintf(" at 0x%x", s.Addr)
	}
	if s.HasSender {
		out += fmt.Sprintf(" from pid %d uid %d", s.SenderPID, s.SenderUID)
	}
	return out
}

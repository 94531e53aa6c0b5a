package live

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrAttach is wrapped by every error that means the process could not
// be snapshotted at all (it does not exist, is a zombie, is traced by
// another debugger, or ptrace is not allowed): the message says what to do.
var ErrAttach = errors.New("cannot attach")

// ErrInterrupted is wrapped by the error of a snapshot or sampling that
// stopped because coreunwind was asked to (SIGINT, SIGTERM): every thread
// was let go first.
var ErrInterrupted = errors.New("interrupted")

func attachErr(pid int, format string, args ...any) error {
	return fmt.Errorf("process %d: %w: %s", pid, ErrAttach, fmt.Sprintf(format, args...))
}

// permissionAdvice explains a refused PTRACE_SEIZE: Yama's ptrace_scope,
// another user's process, or a missing capability.
func permissionAdvice(pid int, st status) string {
	var why []string
	if st.UID != os.Geteuid() && os.Geteuid() != 0 {
		why = append(why, fmt.Sprintf("it belongs to uid %d and you are uid %d: run coreunwind as that user or as root", st.UID, os.Geteuid()))
	}
	if b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope"); err == nil {
		switch strings.TrimSpace(string(b)) {
		case "1":
			why = append(why, "kernel.yama.ptrace_scope is 1 (only a parent may trace its children): run as root or with CAP_SYS_PTRACE, or set it to 0 (sysctl kernel.yama.ptrace_scope=0)")
		case "2":
			why = append(why, "kernel.yama.ptrace_scope is 2 (only CAP_SYS_PTRACE may trace): run as root or with CAP_SYS_PTRACE")
		case "3":
			why = append(why, "kernel.yama.ptrace_scope is 3 (no process may be traced until reboot)")
		}
	}
	if len(why) == 0 {
		why = append(why, "run coreunwind as the process's user or as root (in a container: with CAP_SYS_PTRACE, and outside a seccomp profile that forbids ptrace)")
	}
	return "ptrace not permitted: " + strings.Join(why, "; ")
}

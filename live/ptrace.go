package live

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The ptrace requests x/sys/unix has no wrapper for. Every function here
// must run on the tracer's thread.

// Register sets, as PTRACE_GETREGSET names them (elf.h's NT_*).
const (
	ntPRStatus  = 1          // general registers: the core's pr_reg
	ntPRFPReg   = 2          // floating point registers
	ntPRXFPReg  = 0x46e62b7f // an i386 process's FXSAVE area
	ntX86XState = 0x202      // the XSAVE area
)

// maxXStateSize bounds the XSAVE area: 2.7 KB with AVX-512, 11 KB with
// AMX's tiles; the kernel gives the size it has.
const maxXStateSize = 16 << 10

// getRegSet reads register set nt of thread tid into buf and returns the
// part the kernel filled: its length says the thread's word size (a
// 32-bit process's general registers are i386's, 68 bytes).
func getRegSet(tid int, nt int, buf []byte) ([]byte, error) {
	iov := unix.Iovec{Base: &buf[0]}
	iov.SetLen(len(buf))
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_GETREGSET, uintptr(tid), uintptr(nt), uintptr(unsafe.Pointer(&iov)), 0, 0)
	if e != 0 {
		return nil, e
	}
	return buf[:iov.Len], nil
}

// getRegSetCopy reads register set nt of thread tid (at most size bytes)
// into a slice of its own size: nil when the thread or the kernel has
// none (an XSAVE area on a machine without XSAVE).
func getRegSetCopy(tid, nt, size int) []byte {
	b, err := getRegSet(tid, nt, make([]byte, size))
	if err != nil || len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// detach lets tid go, delivering sig (0: none): a signal that arrived
// while the thread was stopped for the snapshot is passed on, not lost.
func detach(tid, sig int) error {
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_DETACH, uintptr(tid), 0, uintptr(sig), 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// stopKind is what waitpid said about a tracee.
type stopKind int

const (
	notYet   stopKind = iota // still running
	stopped                  // in a ptrace stop: registers can be read
	vanished                 // exited, or no longer ours
)

// pollStop checks, without blocking, whether tid has stopped. sig is a
// signal the thread was about to receive when it stopped (a
// signal-delivery stop), to pass on when it is let go; a group stop
// (the process was stopped by SIGSTOP) or the interrupt's own stop has
// none.
func pollStop(tid int) (kind stopKind, sig int, err error) {
	var ws unix.WaitStatus
	for {
		got, err := unix.Wait4(tid, &ws, unix.WNOHANG|unix.WALL, nil)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.ECHILD):
			return vanished, 0, nil
		case err != nil:
			return notYet, 0, err
		case got == 0:
			return notYet, 0, nil
		}
		break
	}
	event := int(ws) >> 16 // PTRACE_EVENT_* in the status's third byte
	switch {
	case ws.Exited() || ws.Signaled():
		return vanished, 0, nil
	case !ws.Stopped():
		return notYet, 0, nil
	case event == 0:
		return stopped, int(ws.StopSignal()), nil
	}
	// PTRACE_EVENT_STOP: the interrupt's stop, or a group stop (the
	// process was stopped by SIGSTOP, and detaching leaves it so).
	return stopped, 0, nil
}

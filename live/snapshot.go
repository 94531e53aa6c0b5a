package live

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultStackBytes is how much of each thread's stack a snapshot copies
// while the process is stopped, from the stack pointer toward the
// stack's base: deeper frames are read from the running process after it
// is let go, where they may have changed. A thread changes its outer
// frames only by returning past them, and the copy is what the stop
// costs: 512 KiB a thread kept a Go program's 24 threads (whose stacks
// are in the heap, so the copy never ends early at a stack's base)
// stopped 5 to 12 ms; 32 KiB holds a C thread's whole stack in most
// programs (some two hundred frames).
const DefaultStackBytes = 32 << 10

// DefaultStopTimeout bounds the wait for one thread to stop: a thread in
// an uninterruptible sleep (state D: a hung NFS read, a device) stops
// only when the kernel lets it return.
const DefaultStopTimeout = 2 * time.Second

// redZone is the part below the stack pointer a leaf function may use
// without moving it (the x86_64 ABI's red zone): copied with the stack.
const redZone = 128

// Options say what a snapshot copies.
type Options struct {
	// StackBytes bounds the copy of each stack (0: DefaultStackBytes).
	StackBytes int
	// StopTimeout bounds the wait for each thread to stop (0:
	// DefaultStopTimeout).
	StopTimeout time.Duration
	// WhileStopped, when set, runs once every thread is stopped and its
	// registers read, before any is let go: a dump writes the whole
	// memory there. An error from it fails the snapshot (the threads
	// are let go all the same).
	WhileStopped func(s *Snapshot) error
}

// Thread is one thread as the snapshot found it.
type Thread struct {
	TID int
	// Regs is the thread's general registers as PTRACE_GETREGSET
	// NT_PRSTATUS gives them: a core's pr_reg (x86_64's or i386's
	// user_regs_struct).
	Regs []byte
	// FPRegs are its floating point registers (NT_PRFPREG), read for a
	// dump only (nil otherwise).
	FPRegs []byte
	// XFPRegs are an i386 process's SSE registers (NT_PRXFPREG, the
	// FXSAVE area), and XState every thread's XSAVE area (NT_X86_XSTATE:
	// the AVX registers' upper halves and more, which debuggers show
	// from a core only with it); read for a dump only, as FPRegs.
	XFPRegs, XState []byte
	// Signal is a signal that was being delivered to the thread when it
	// stopped: passed on when it is let go (0: none).
	Signal int
}

// Snapshot is a process's threads and the memory copied while they
// were stopped; everything else is read from the running process.
type Snapshot struct {
	PID     int
	Status  status
	Cmdline string
	Machine elf.Machine
	Class   elf.Class
	Threads []Thread
	Maps    []mapping
	Auxv    []byte
	// Copies is the memory copied while the threads were stopped: the
	// top of each thread's stack. Sorted by address, not overlapping.
	Copies []Copy
	// Stopped is how long the threads were stopped: from the first
	// interrupt to the last thread let go.
	Stopped time.Duration
	// Warnings say what the snapshot lacks (a thread that exited or did
	// not stop).
	Warnings []string

	mem *processMemory
	// dir is the /proc directory of the process's address space and
	// files: /proc/PID, or /proc/PID/task/TID of a live thread when the
	// main thread has exited (pthread_exit: its maps, auxv and exe are
	// gone with its memory).
	dir string
	// unknownRegs is the size of a thread's registers that are neither
	// x86_64's nor i386's (0: none seen).
	unknownRegs int
	// stop is Take's context while the snapshot is taken: a long dump
	// checks it between chunks.
	stop context.Context
}

// Copy is memory copied from the process.
type Copy struct {
	Addr uint64
	Data []byte
}

// Close releases what the snapshot holds open (/proc/PID/mem).
func (s *Snapshot) Close() { s.mem.close() }

// ptrSize is the process's word size.
func (s *Snapshot) ptrSize() int {
	if s.Class == elf.ELFCLASS32 {
		return 4
	}
	return 8
}

// Take stops every thread of process pid, reads its registers, copies
// the top of its stack (and runs opts.WhileStopped), then lets every
// thread go. No thread is left stopped by any error, by ctx's end (which
// makes it return an error wrapping ErrInterrupted once the threads run
// again), or by this process being killed: the threads are traced from
// a thread of their own that the kernel detaches when it ends.
func Take(ctx context.Context, pid int, opts Options) (*Snapshot, error) {
	if opts.StackBytes <= 0 {
		opts.StackBytes = DefaultStackBytes
	}
	if opts.StopTimeout <= 0 {
		opts.StopTimeout = DefaultStopTimeout
	}
	if pid == os.Getpid() {
		return nil, attachErr(pid, "that is coreunwind itself: a process cannot stop its own threads to look at them")
	}
	s := &Snapshot{PID: pid, stop: ctx}
	defer func() { s.stop = nil }()
	st, err := readStatus(filepath.Join(procDir(pid), "status"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, attachErr(pid, "no such process")
	} else if err != nil {
		return nil, attachErr(pid, "%v", err)
	}
	s.Status = st
	switch {
	case (st.State == 'Z' || st.State == 'X') && !hasLiveThread(pid):
		return nil, attachErr(pid, "the process is a zombie (it has exited and its parent, process %d, has not reaped it): it has no threads left to show", st.PPID)
	case st.TracerPID != 0:
		return nil, attachErr(pid, "already traced by %s: only one tracer at a time; detach that debugger or tracer first", describeProcess(st.TracerPID))
	}
	// The address space and the files are read through a thread that
	// has them: the main one, unless it has exited.
	memTID := pid
	if st.State == 'Z' || st.State == 'X' {
		memTID = firstLiveThread(pid)
		s.dir = filepath.Join(procDir(pid), "task", strconv.Itoa(memTID))
	} else {
		s.dir = procDir(pid)
	}
	s.mem = newProcessMemory(memTID)
	maps, err := os.ReadFile(filepath.Join(s.dir, "maps"))
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, attachErr(pid, "%s", permissionAdvice(pid, st))
		}
		return nil, attachErr(pid, "%v", err)
	}
	s.Maps = parseMaps(maps)
	s.Cmdline = readCmdline(s.dir)
	// Read before the stop (it does not change): a dump written in the
	// stop needs it.
	auxv, auxvErr := os.ReadFile(filepath.Join(s.dir, "auxv"))
	quietStops()
	t := newTracer()
	defer t.close()
	t.do(func() { err = s.freeze(ctx, opts, auxv, auxvErr) })
	if err != nil {
		s.Close()
		return nil, err
	}
	if ctx.Err() != nil {
		s.Close()
		return nil, fmt.Errorf("process %d: %w (every thread was let go)", pid, ErrInterrupted)
	}
	return s, nil
}

// describeProcess names the process of thread tid (a TracerPid) for a
// message: "process 12 (gdb)".
func describeProcess(tid int) string {
	if st, err := readStatus(filepath.Join(procDir(tid), "status")); err == nil {
		if st.Tgid != 0 {
			tid = st.Tgid
		}
		return fmt.Sprintf("process %d (%s)", tid, st.Name)
	}
	return fmt.Sprintf("process %d", tid)
}

// tracee is a thread the tracer has seized.
type tracee struct {
	tid     int
	stopped bool
	signal  int
}

// freeze is Take's part on the tracer's thread.
func (s *Snapshot) freeze(ctx context.Context, opts Options, auxv []byte, auxvErr error) (err error) {
	var all []*tracee
	seen := map[int]bool{}
	var start time.Time
	var arena *stackArena
	defer func() {
		// Every path out lets every thread go: the registers and
		// copies are taken, or the snapshot failed.
		for _, tr := range all {
			s.release(tr)
		}
		if !start.IsZero() {
			s.Stopped = time.Since(start)
		}
	}()
	// Threads may start while the others are being stopped: list them
	// again until a listing finds none new (a stopped thread starts
	// none, so this ends).
	for round := 0; ; round++ {
		tids, err := taskIDs(s.PID)
		if err != nil {
			return attachErr(s.PID, "listing its threads: %v", err)
		}
		var fresh []*tracee
		for _, tid := range tids {
			if seen[tid] {
				continue
			}
			seen[tid] = true
			switch err := unix.PtraceSeize(tid); {
			case err == nil:
				fresh = append(fresh, &tracee{tid: tid})
			case errors.Is(err, unix.ESRCH), errors.Is(err, unix.EPERM) && threadExited(s.PID, tid):
				// An exited thread (ptrace refuses a zombie with EPERM):
				// the main thread of a process it left with pthread_exit,
				// or one that ended as the snapshot began.
				if tid == s.PID {
					s.warnf("the main thread (%d) has exited (pthread_exit): the process runs on in its other threads", tid)
				} else {
					s.warnf("thread %d exited as the snapshot began", tid)
				}
			case errors.Is(err, unix.EPERM) && len(all) == 0 && len(fresh) == 0:
				return s.seizeRefused()
			default:
				s.warnf("thread %d: cannot attach: %v", tid, err)
			}
		}
		if len(fresh) == 0 {
			break
		}
		if arena == nil {
			arena = newStackArena(len(fresh), opts.StackBytes)
		}
		if start.IsZero() {
			start = time.Now()
		}
		for _, tr := range fresh {
			if err := unix.PtraceInterrupt(tr.tid); err != nil {
				s.warnf("thread %d: cannot stop it: %v", tr.tid, err)
			}
		}
		all = append(all, fresh...)
		s.waitStopped(fresh, opts.StopTimeout)
	}
	if len(all) == 0 {
		return attachErr(s.PID, "no thread could be attached (the process exited?)")
	}
	holdForTest(ctx, s.PID)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("process %d: %w (every thread was let go)", s.PID, ErrInterrupted)
	}
	s.readRegisters(all, opts.WhileStopped != nil)
	if len(s.Threads) == 0 && s.Machine == 0 && s.unknownRegs != 0 {
		return attachErr(s.PID, "%d bytes of registers per thread: coreunwind -p reads x86_64 and i386 processes only", s.unknownRegs)
	}
	if len(s.Threads) == 0 {
		return attachErr(s.PID, "no thread stopped: they exited during the snapshot")
	}
	if auxvErr != nil {
		s.warnf("reading the auxiliary vector: %v", auxvErr)
	}
	s.Auxv = trimAuxv(auxv, s.ptrSize())
	s.copyStacks(opts.StackBytes, arena)
	if opts.WhileStopped != nil {
		return opts.WhileStopped(s)
	}
	return nil
}

func threadState(pid, tid int) byte {
	st, err := readStatus(filepath.Join(procDir(pid), "task", fmt.Sprint(tid), "status"))
	if err != nil || st.State == 0 {
		return '?'
	}
	return st.State
}

// seizeRefused explains a PTRACE_SEIZE refused with EPERM: another
// tracer came first, or ptrace is not permitted.
func (s *Snapshot) seizeRefused() error {
	if st, err := readStatus(filepath.Join(procDir(s.PID), "status")); err == nil {
		if st.TracerPID != 0 {
			return attachErr(s.PID, "already traced by %s: only one tracer at a time; detach that debugger or tracer first", describeProcess(st.TracerPID))
		}
		if st.State == 'Z' || st.State == 'X' {
			return attachErr(s.PID, "the process is a zombie (it has exited and its parent, process %d, has not reaped it): it has no threads left to show", st.PPID)
		}
	}
	return attachErr(s.PID, "%s", permissionAdvice(s.PID, s.Status))
}

// readRegisters reads every stopped thread's registers, the process's
// main thread first (a core's first thread is the one debuggers show
// first).
func (s *Snapshot) readRegisters(ts []*tracee, fp bool) {
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].tid == s.PID && ts[j].tid != s.PID })
	for _, tr := range ts {
		if !tr.stopped {
			continue
		}
		regs, err := getRegSet(tr.tid, ntPRStatus, make([]byte, 512))
		if err != nil {
			if errors.Is(err, unix.ESRCH) {
				s.warnf("thread %d exited during the snapshot", tr.tid)
			} else {
				s.warnf("thread %d: reading its registers: %v", tr.tid, err)
			}
			continue
		}
		if s.Machine == 0 {
			if !s.setMachine(len(regs)) {
				s.unknownRegs = len(regs)
				continue
			}
		}
		th := Thread{TID: tr.tid, Regs: regs, Signal: tr.signal}
		if fp {
			th.FPRegs = getRegSetCopy(tr.tid, ntPRFPReg, 1024)
			if s.Machine == elf.EM_386 {
				th.XFPRegs = getRegSetCopy(tr.tid, ntPRXFPReg, 1024)
			}
			th.XState = getRegSetCopy(tr.tid, ntX86XState, maxXStateSize)
		}
		s.Threads = append(s.Threads, th)
	}
}

// The sizes of NT_PRSTATUS's registers (user_regs_struct) by machine.
const (
	x86_64RegsSize = 27 * 8
	i386RegsSize   = 17 * 4
)

// setMachine tells the process's machine by the size of a thread's
// registers: a 32-bit process's are i386's whoever reads them.
func (s *Snapshot) setMachine(n int) bool {
	switch n {
	case x86_64RegsSize:
		s.Machine, s.Class = elf.EM_X86_64, elf.ELFCLASS64
	case i386RegsSize:
		s.Machine, s.Class = elf.EM_386, elf.ELFCLASS32
	default:
		return false
	}
	return true
}

// stackPointer is a thread's stack pointer from its registers.
func (s *Snapshot) stackPointer(regs []byte) uint64 {
	if s.Machine == elf.EM_386 {
		return uint64(le.Uint32(regs[15*4:])) // esp
	}
	return le.Uint64(regs[19*8:]) // rsp
}

// release lets a seized thread go. One not stopped cannot be detached
// (ptrace refuses until it stops): it is left to the tracer thread's
// end, which the kernel turns into a detach.
func (s *Snapshot) release(tr *tracee) {
	if !tr.stopped {
		// It may have stopped since it was last looked at.
		kind, sig, err := pollStop(tr.tid)
		if err != nil || kind != stopped {
			return
		}
		tr.stopped, tr.signal = true, sig
	}
	if err := detach(tr.tid, tr.signal); err != nil && !errors.Is(err, unix.ESRCH) {
		s.warnf("thread %d: detaching: %v", tr.tid, err)
	}
}

func (s *Snapshot) warnf(format string, args ...any) {
	s.Warnings = append(s.Warnings, fmt.Sprintf(format, args...))
}

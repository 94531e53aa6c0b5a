package live

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/unwind"
	"golang.org/x/sys/unix"
)

// childEnv makes the test binary a process to snapshot: it prints
// "ready" and blocks (the Go runtime gives it several threads).
const childEnv = "COREUNWIND_LIVE_TEST_CHILD"

// childThreadsEnv, set in a child, is a number of threads it parks (each
// a goroutine locked to its thread, blocked) before it is ready.
const childThreadsEnv = "COREUNWIND_LIVE_TEST_CHILD_THREADS"

// childChurnEnv, set in a child, makes it start threads that end at
// once, one after the other, for as long as it runs.
const childChurnEnv = "COREUNWIND_LIVE_TEST_CHILD_CHURN"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		n, _ := strconv.Atoi(os.Getenv(childThreadsEnv))
		var parked sync.WaitGroup
		for range n {
			parked.Add(1)
			go func() {
				runtime.LockOSThread()
				parked.Done()
				select {}
			}()
		}
		parked.Wait()
		if os.Getenv(childChurnEnv) == "1" {
			go churnThreads()
		}
		fmt.Println("ready")
		for {
			time.Sleep(time.Hour)
		}
	}
	os.Exit(m.Run())
}

// churnThreads starts threads that end at once: a goroutine that
// returns locked to its thread ends the thread.
func churnThreads() {
	for {
		done := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(done)
		}()
		<-done
		time.Sleep(20 * time.Microsecond)
	}
}

// startChild runs the test binary as a child to snapshot.
func startChild(t testing.TB) int { return startChildThreads(t, 0) }

// startChildThreads runs the test binary as a child to snapshot, with
// threads threads of its own parked besides the Go runtime's.
func startChildThreads(t testing.TB, threads int, env ...string) int {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=1", childThreadsEnv+"="+strconv.Itoa(threads))
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("child: %q %v", line, err)
	}
	return cmd.Process.Pid
}

// checkNotStopped fails if a thread of pid is in a tracing stop or pid
// has a tracer.
func checkNotStopped(t *testing.T, pid int) {
	t.Helper()
	tids, err := taskIDs(pid)
	if err != nil {
		t.Fatal(err)
	}
	for _, tid := range tids {
		st, err := readStatus(filepath.Join(procDir(pid), "task", fmt.Sprint(tid), "status"))
		if err == nil && (st.State == 't' || st.TracerPID != 0) {
			t.Errorf("thread %d left in state %c, tracer %d", tid, st.State, st.TracerPID)
		}
	}
}

// TestTakeAndOpen: a snapshot of a running process has every thread's
// registers and the top of every stack, leaves the process running, and
// opens as a core whose memory is the copies where it has them and the
// running process elsewhere (corefile.Options.Memory).
func TestTakeAndOpen(t *testing.T) {
	pid := startChild(t)
	s, err := Take(context.Background(), pid, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkNotStopped(t, pid)
	tids, _ := taskIDs(pid)
	if len(s.Threads) != len(tids) || s.Threads[0].TID != pid {
		t.Errorf("threads %v, want the %d of %v, main first", s.Threads, len(tids), tids)
	}
	if s.Machine != elf.EM_X86_64 || s.Stopped <= 0 || len(s.Copies) == 0 || len(s.Auxv) == 0 {
		t.Fatalf("machine %v, stopped %v, %d copies, %d bytes of auxv", s.Machine, s.Stopped, len(s.Copies), len(s.Auxv))
	}
	for _, th := range s.Threads {
		if len(th.Regs) != x86_64RegsSize {
			t.Errorf("thread %d: %d bytes of registers", th.TID, len(th.Regs))
		}
		sp := s.stackPointer(th.Regs)
		covered := false
		for _, c := range s.Copies {
			covered = covered || (c.Addr <= sp && sp < c.Addr+uint64(len(c.Data)))
		}
		if !covered {
			t.Errorf("thread %d: stack pointer %#x in no copy", th.TID, sp)
		}
	}

	c, err := s.Open(corefile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.PID != pid || len(c.Threads) != len(s.Threads) || c.Arch != "x86_64" || c.CrashedTID != 0 {
		t.Errorf("core: pid %d, %d threads, arch %s, crashed %d", c.PID, len(c.Threads), c.Arch, c.CrashedTID)
	}
	for _, cp := range s.Copies {
		got := make([]byte, len(cp.Data))
		if err := c.ReadMem(cp.Addr, got); err != nil || !bytes.Equal(got, cp.Data) {
			t.Errorf("copy at %#x does not read back: %v", cp.Addr, err)
		}
	}
	for _, th := range c.Threads {
		if th.Name != "live.test" {
			t.Errorf("thread %d named %q, want the child's comm", th.TID, th.Name)
		}
	}
	// The executable's mapping starts with its ELF header: read from
	// the running process, not copied.
	exe := c.Modules[0]
	magic := make([]byte, 4)
	if err := c.ReadMem(exe.Start, magic); err != nil || string(magic) != "\x7fELF" {
		t.Errorf("%s at %#x: %q, %v", exe.Path, exe.Start, magic, err)
	}
	// Memory the process does not have stays unavailable.
	if err := c.ReadMem(8, magic); !errors.Is(err, unwind.ErrUnavailable) {
		t.Errorf("reading address 8: %v, want ErrUnavailable", err)
	}
}

// TestTakeRefusals: a process that is gone, coreunwind itself, or a zombie, is refused with
// ErrAttach and says so.
func TestTakeRefusals(t *testing.T) {
	done := exec.Command("true")
	if err := done.Run(); err != nil {
		t.Fatal(err)
	}
	_, err := Take(context.Background(), done.Process.Pid, Options{})
	if !errors.Is(err, ErrAttach) || !strings.Contains(err.Error(), "no such process") {
		t.Errorf("a reaped process: %v", err)
	}
	if _, err := Take(context.Background(), os.Getpid(), Options{}); !errors.Is(err, ErrAttach) || !strings.Contains(err.Error(), "itself") {
		t.Errorf("itself: %v", err)
	}
	zombie := exec.Command("true")
	if err := zombie.Start(); err != nil {
		t.Fatal(err)
	}
	defer zombie.Wait()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		st, _ := readStatus(filepath.Join(procDir(zombie.Process.Pid), "status"))
		if st.State == 'Z' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("never a zombie")
		}
	}
	_, err = Take(context.Background(), zombie.Process.Pid, Options{})
	if !errors.Is(err, ErrAttach) || !strings.Contains(err.Error(), "zombie") {
		t.Errorf("a zombie: %v", err)
	}
}

// TestTakeInterrupted: a snapshot whose context ends lets the threads go
// and says it was interrupted.
func TestTakeInterrupted(t *testing.T) {
	pid := startChild(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Take(ctx, pid, Options{})
	if !errors.Is(err, ErrInterrupted) {
		t.Errorf("err = %v, want ErrInterrupted", err)
	}
	checkNotStopped(t, pid)
}

// TestWriteDump: a dump written while the process is stopped is a core
// on its own (no live process behind it): every thread, its stack as
// the snapshot copied it, the executable's ELF header, and SIGSTOP as
// its signal; and a dump interrupted midway lets the process go.
func TestWriteDump(t *testing.T) {
	pid := startChild(t)
	var dump bytes.Buffer
	s, err := Take(context.Background(), pid, Options{WhileStopped: func(s *Snapshot) error { return s.WriteDump(&dump) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkNotStopped(t, pid)
	c, err := corefile.OpenBytes(dump.Bytes(), corefile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Threads) != len(s.Threads) || c.Signal == nil || c.Signal.Number != int(unix.SIGSTOP) {
		t.Fatalf("%d threads (want %d), signal %+v", len(c.Threads), len(s.Threads), c.Signal)
	}
	for i, th := range c.Threads {
		if th.TID != s.Threads[i].TID || !bytes.Equal(th.GRegs, s.Threads[i].Regs) || len(th.FPRegs) == 0 {
			t.Errorf("thread %d: registers differ from the snapshot's, or no floating point ones", th.TID)
		}
	}
	for _, cp := range s.Copies {
		got := make([]byte, len(cp.Data))
		if err := c.ReadMem(cp.Addr, got); err != nil || !bytes.Equal(got, cp.Data) {
			t.Errorf("stack at %#x not in the dump as copied: %v", cp.Addr, err)
		}
	}
	magic := make([]byte, 4)
	if err := c.ReadMem(c.Modules[0].Start, magic); err != nil || string(magic) != "\x7fELF" {
		t.Errorf("the executable's ELF header is not in the dump: %q %v", magic, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	_, err = Take(ctx, pid, Options{WhileStopped: func(s *Snapshot) error {
		cancel()
		return s.WriteDump(io.Discard)
	}})
	if !errors.Is(err, ErrInterrupted) {
		t.Errorf("a dump interrupted midway: %v, want ErrInterrupted", err)
	}
	checkNotStopped(t, pid)
}

// TestTakeThreadsEnding: snapshots of a process whose threads start and
// end all the time (a thread may end between the listing and its
// attach, between its attach and its stop): each succeeds, holds only
// threads whose registers it read, says of the others only that they
// exited, and leaves no thread stopped or traced.
func TestTakeThreadsEnding(t *testing.T) {
	pid := startChildThreads(t, 4, childChurnEnv+"=1")
	exited := 0
	for range 100 {
		s, err := Take(context.Background(), pid, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, th := range s.Threads {
			if len(th.Regs) != x86_64RegsSize {
				t.Errorf("thread %d: %d bytes of registers", th.TID, len(th.Regs))
			}
		}
		for _, w := range s.Warnings {
			if !strings.Contains(w, "exited") {
				t.Errorf("warning %q: not a thread that exited", w)
			}
			exited++
		}
		s.Close()
		checkNotStopped(t, pid)
	}
	t.Logf("%d threads exited during 100 snapshots", exited)
}

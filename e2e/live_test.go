package e2e

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/refbt"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/google/pprof/profile"
	"golang.org/x/sys/unix"
)

// Live processes (coreunwind -p PID): the tests run a program of theirs
// (liveproc.c) whose threads sit in known calls, so that coreunwind's
// snapshot and gdb's and eu-stack's later attaches see the same stacks.

const (
	exitAttach      = 8
	exitInterrupted = 130
)

// liveTarget is a test program running at its known point.
type liveTarget struct {
	exe  string
	pid  int
	cmd  *exec.Cmd
	jit  string // the JIT object it loaded, "" if none
	spin bool
}

// liveArches are the programs' builds: x86_64 and i386.
var liveArches = []struct{ name, prog, jit string }{
	{"x86_64", "liveproc", "livejit"},
	{"i386", "i386-liveproc", "i386-livejit"},
}

// startLive runs prog with args and waits for its known point: "ready",
// then every thread but the spinner asleep in the kernel.
func startLive(t *testing.T, prog string, spin bool, args ...string) *liveTarget {
	t.Helper()
	exe := buildProgram(t, prog)
	return startLiveCmd(t, exe, exec.Command(exe, args...), spin)
}

// startLiveCmd is startLive of a command made ready to start (in a
// chroot...); exe is the program's executable as the test sees it.
func startLiveCmd(t *testing.T, exe string, cmd *exec.Cmd, spin bool) *liveTarget {
	t.Helper()
	prog := filepath.Base(exe)
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
		t.Fatalf("%s did not get ready: %q %v", prog, line, err)
	}
	lt := &liveTarget{exe: exe, pid: cmd.Process.Pid, cmd: cmd, spin: spin}
	lt.waitParked(t)
	return lt
}

// taskStates returns the state letter of each thread of pid by tid.
func taskStates(t *testing.T, pid int) map[int]byte {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/task", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]byte{}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "stat"))
		if err != nil {
			continue
		}
		// "tid (comm) S ...": the state follows the last ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		tid, _ := strconv.Atoi(e.Name())
		if i >= 0 && i+2 < len(s) {
			out[tid] = s[i+2]
		}
	}
	return out
}

// waitParked waits until every thread but the spinner sleeps, twice in a
// row 50 ms apart.
func (lt *liveTarget) waitParked(t *testing.T) {
	t.Helper()
	want := 0
	if lt.spin {
		want = 1
	}
	stable := 0
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		awake := 0
		for _, st := range taskStates(t, lt.pid) {
			if st != 'S' {
				awake++
			}
		}
		if awake == want {
			if stable++; stable == 2 {
				return
			}
		} else {
			stable = 0
		}
	}
	t.Fatalf("process %d never parked: thread states %s", lt.pid, fmtStates(taskStates(t, lt.pid)))
}

// checkRunning fails unless every thread of the target is free: none in
// a tracing stop ('t'), no tracer.
func (lt *liveTarget) checkRunning(t *testing.T, within time.Duration) {
	t.Helper()
	var states map[int]byte
	var tracer string
	for deadline := time.Now().Add(within); ; time.Sleep(20 * time.Millisecond) {
		states = taskStates(t, lt.pid)
		stopped := false
		for _, st := range states {
			stopped = stopped || st == 't' || st == 'T'
		}
		tracer = statusField(t, lt.pid, "TracerPid")
		if !stopped && tracer == "0" {
			return
		}
		if time.Now().After(deadline) {
			break
		}
	}
	t.Fatalf("process %d left stopped or traced: thread states %s, TracerPid %s", lt.pid, fmtStates(states), tracer)
}

func statusField(t *testing.T, pid int, key string) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// liveReport is coreunwind's JSON report of the target.
func (lt *liveTarget) liveReport(t *testing.T, flags ...string) *report {
	t.Helper()
	args := append([]string{"--format", "json", "-p", strconv.Itoa(lt.pid)}, flags...)
	r := runCoreunwind(t, args...)
	if r.Code != exitOK {
		t.Fatalf("coreunwind %s: exit code %d, want 0; stderr:\n%s", strings.Join(args, " "), r.Code, truncate(r.Stderr, 4000))
	}
	rep, err := decodeReport(r.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// attachReferences are gdb's (gdb -p) and eu-stack's (eu-stack -p)
// backtraces of the running target.
func (lt *liveTarget) attachReferences(t *testing.T) (gdb, eu map[int]*refbt.Thread) {
	t.Helper()
	// gdb EXECUTABLE PID attaches to PID.
	gdb, _ = runGDB(t, lt.exe, strconv.Itoa(lt.pid))
	euStack := testenv.NeedTool(t, "eu-stack")
	out := runTool(t, euStack, "-p", strconv.Itoa(lt.pid), "-i", "-s", "-a")
	eu = refbt.ParseEuStack(out)
	if len(eu) == 0 {
		t.Fatalf("eu-stack -p printed no threads:\n%s", out)
	}
	return gdb, eu
}

// checkKnownPoint checks what the program's threads are known to be
// doing, beyond agreeing with the reference tools: the spinner in spin,
// the handler's thread through its signal frame, the JIT frames named
// from the object registered with the GDB JIT interface.
//
// A core of the process (dumped) records SIGSTOP as gdb's gcore does; a
// live report has no signal. Neither has a crashed thread.
func checkKnownPoint(t *testing.T, lt *liveTarget, rep *report, dumped bool) {
	t.Helper()
	want := 4 + btoi(lt.spin) + btoi(lt.jit != "")
	if len(rep.Threads) != want {
		t.Fatalf("%d threads, want %d", len(rep.Threads), want)
	}
	if sig := rep.Core.Signal; rep.Core.CrashedTID != 0 || (sig != nil && (!dumped || sig.Name != "SIGSTOP")) {
		t.Errorf("a running process with a crashed thread (%d) or a signal (%+v)", rep.Core.CrashedTID, rep.Core.Signal)
	}
	byFunc := map[string]*reportThread{}
	for i := range rep.Threads {
		th := &rep.Threads[i]
		if th.Error != nil {
			t.Errorf("thread %d: %s", th.TID, *th.Error)
		}
		for _, f := range th.Frames {
			byFunc[normalizeFunc(f.Function)] = th
		}
	}
	expect := func(first string, fns ...string) {
		t.Helper()
		th := byFunc[first]
		if th == nil {
			t.Errorf("no thread has a frame in %s", first)
			return
		}
		expectFunctions(t, th, fns...)
		// liveproc names each thread after its function; a live
		// report has the names (a core, only the process's).
		if want := fns[len(fns)-1]; !dumped && want != "main" && th.Name != want {
			t.Errorf("thread %d is named %q, want %q", th.TID, th.Name, want)
		}
	}
	expect("idle_loop", "nap", "idle_loop", "main")
	// (i386's C library has no symbols here: its frames are checked
	// against the reference tools only.)
	expect("reader", "reader")
	expect("waiter", "waiter")
	expect("on_usr1", "in_handler", "on_usr1", "handler")
	if lt.spin {
		th := byFunc["spinner"]
		if th == nil || len(th.Frames) < 2 || th.Frames[0].Function != "spin" || th.Frames[1].Function != "spinner" {
			t.Errorf("the spinning thread does not start spin, spinner: %+v", th)
		}
	}
	if lt.jit != "" {
		expect("jit_entry", "host_block", "jit_middle", "jit_entry", "jit")
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestLiveProcess: coreunwind -p on x86_64 and i386 programs whose
// threads are blocked in system calls (read, futex, nanosleep), in a
// signal handler on an alternate stack, spinning, and in JIT code
// registered with the GDB JIT interface. Every thread's frames agree
// with gdb -p's and eu-stack -p's (the comparison rule of
// compare_test.go: frames both tools show, by pc and name; the spinner's
// innermost pc is the one frame that moves between attaches), and the
// process runs on, untraced, afterwards.
func TestLiveProcess(t *testing.T) {
	t.Parallel()
	for _, a := range liveArches {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			jit := buildProgram(t, a.jit)
			lt := startLive(t, a.prog, true, "jit", jit)
			lt.jit = jit
			rep := lt.liveReport(t)
			lt.checkRunning(t, 2*time.Second)
			checkKnownPoint(t, lt, rep, false)
			gdb, eu := lt.attachReferences(t)
			compareWithReferences(t, gdb, eu, withoutSpinnerTop(t, gdb, eu, rep))
			lt.checkRunning(t, 2*time.Second)
		})
	}
}

// withoutSpinnerTop leaves out the spinning thread's innermost frame,
// in the report and in both references, once each says it is in spin:
// the three attaches are three moments, and the loop's pc moves between
// them (its callers stay put). The references are edited in place; the
// report is copied.
func withoutSpinnerTop(t *testing.T, gdb, eu map[int]*refbt.Thread, rep *report) *report {
	t.Helper()
	cp := *rep
	cp.Threads = append([]reportThread(nil), rep.Threads...)
	for i := range cp.Threads {
		th := &cp.Threads[i]
		if len(th.Frames) == 0 || th.Frames[0].Function != "spin" {
			continue
		}
		for name, ref := range map[string]map[int]*refbt.Thread{"gdb": gdb, "eu-stack": eu} {
			rt := ref[th.TID]
			if rt == nil || len(rt.Frames) == 0 || normalizeFunc(rt.Frames[0].Func) != "spin" {
				t.Errorf("%s: the spinning thread %d is not in spin: %+v", name, th.TID, rt)
				continue
			}
			rt.Frames = rt.Frames[1:]
		}
		th.Frames = th.Frames[1:]
	}
	return &cp
}

// TestLiveDump: -p PID --dump FILE writes, in the same stop as the
// report, a core that coreunwind, gdb and eu-stack read: coreunwind's
// report of the dump is the live report frame for frame (the spinner
// too: one moment), and gdb's and eu-stack's backtraces of the dump
// agree with the live report. coreunwind gcore writes the same kind of
// core.
func TestLiveDump(t *testing.T) {
	t.Parallel()
	for _, a := range liveArches {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			jit := buildProgram(t, a.jit)
			lt := startLive(t, a.prog, true, "jit", jit)
			lt.jit = jit
			dump := filepath.Join(t.TempDir(), "live.core")
			live := lt.liveReport(t, "--dump", dump)
			lt.checkRunning(t, 2*time.Second)
			fromDump, _ := unwindJSON(t, nil, dump, lt.exe)
			if diff := sameFrames(live, fromDump); diff != "" {
				t.Errorf("the dump's report differs from the live report: %s", diff)
			}
			gdb, _ := runGDB(t, lt.exe, dump)
			eu, _ := runEuStack(t, lt.exe, dump)
			compareWithReferences(t, gdb, eu, live)
			// gdb's backtrace of the dump names the spinner's pc too: the
			// same moment as the live report.
			for tid, g := range gdb {
				th := live.thread(tid)
				if th == nil || len(g.Frames) == 0 || len(th.Frames) == 0 {
					t.Errorf("thread %d: in gdb's backtrace of the dump, not in the live report", tid)
					continue
				}
				if pc, _ := th.Frames[0].pc(); g.Frames[0].HasPC && g.Frames[0].PC != pc {
					t.Errorf("thread %d: gdb's frame 0 of the dump is at 0x%x, the live report's at 0x%x", tid, g.Frames[0].PC, pc)
				}
			}

			gcore := filepath.Join(t.TempDir(), "gcore.core")
			r := runCoreunwind(t, "gcore", "-o", gcore, strconv.Itoa(lt.pid))
			if r.Code != exitOK || !strings.Contains(r.Stdout, "Saved corefile "+gcore) {
				t.Fatalf("coreunwind gcore: exit %d, stdout %q, stderr %s", r.Code, r.Stdout, r.Stderr)
			}
			lt.checkRunning(t, 2*time.Second)
			fromGcore, _ := unwindJSON(t, nil, gcore, lt.exe)
			checkKnownPoint(t, lt, fromGcore, true)
		})
	}
}

// sameFrames compares two reports thread by thread, frame by frame (pc
// and function); "" when they are the same.
func sameFrames(a, b *report) string {
	if len(a.Threads) != len(b.Threads) {
		return fmt.Sprintf("%d threads, %d threads", len(a.Threads), len(b.Threads))
	}
	for _, ta := range a.Threads {
		tb := b.thread(ta.TID)
		if tb == nil {
			return fmt.Sprintf("thread %d missing", ta.TID)
		}
		fa, fb := frameKeys(ta), frameKeys(*tb)
		if !slices.Equal(fa, fb) {
			return fmt.Sprintf("thread %d:\n  %s\nvs\n  %s", ta.TID, strings.Join(fa, "\n  "), strings.Join(fb, "\n  "))
		}
	}
	return ""
}

func frameKeys(th reportThread) []string {
	var out []string
	for _, f := range th.Frames {
		out = append(out, f.PC+" "+f.Function)
	}
	return out
}

// TestLiveNeverLeftStopped: coreunwind killed (SIGKILL) or interrupted
// (SIGINT, SIGTERM) while it holds every thread of the process stopped
// (the test hook COREUNWIND_TEST_HOLD_STOPPED keeps it there): the
// process runs on untraced, and an interrupted coreunwind exits 130.
func TestLiveNeverLeftStopped(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			lt := startLive(t, "liveproc", true)
			needCoreunwind(t)
			cmd := exec.Command(coreunwindBin, "-p", strconv.Itoa(lt.pid))
			cmd.Env = append(os.Environ(), "COREUNWIND_TEST_HOLD_STOPPED=60s")
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			br := bufio.NewReader(stderr)
			line, err := br.ReadString('\n')
			if err != nil || !strings.Contains(line, "holding process") {
				t.Fatalf("coreunwind did not hold the process: %q %v", line, err)
			}
			// The hold is real: every thread is in a tracing stop.
			for tid, st := range taskStates(t, lt.pid) {
				if st != 't' {
					t.Fatalf("thread %d in state %c while coreunwind holds the process, want t", tid, st)
				}
			}
			cmd.Process.Signal(sig)
			rest, _ := io.ReadAll(br)
			err = cmd.Wait()
			lt.checkRunning(t, 2*time.Second)
			code := cmd.ProcessState.ExitCode()
			switch {
			case sig == syscall.SIGKILL && err == nil:
				t.Errorf("coreunwind survived SIGKILL")
			case sig != syscall.SIGKILL && code != exitInterrupted:
				t.Errorf("coreunwind exited %d (%v) on %v, want %d; stderr: %s", code, err, sig, exitInterrupted, rest)
			case sig != syscall.SIGKILL && !strings.Contains(string(rest), "interrupted"):
				t.Errorf("no word of the interruption on stderr: %s", rest)
			}
		})
	}
}

// TestLiveRefusals: a process coreunwind cannot snapshot gets exit code 8
// and a message that says why and what to do, and is not touched.
func TestLiveRefusals(t *testing.T) {
	t.Parallel()
	refuse := func(t *testing.T, pid int, want ...string) {
		t.Helper()
		r := runCoreunwind(t, "-p", strconv.Itoa(pid))
		if r.Code != exitAttach {
			t.Errorf("exit code %d, want %d; stderr: %s", r.Code, exitAttach, r.Stderr)
		}
		for _, w := range want {
			if !strings.Contains(r.Stderr, w) {
				t.Errorf("stderr %q does not say %q", r.Stderr, w)
			}
		}
	}
	t.Run("already-traced", func(t *testing.T) {
		t.Parallel()
		lt := startLive(t, "liveproc", false, "nospin")
		seized := make(chan error)
		release := make(chan struct{})
		released := make(chan error)
		go func() {
			// ptrace ties the tracee to this OS thread: every request
			// from it, and a detach needs the tracee stopped.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			seized <- unix.PtraceSeize(lt.pid)
			<-release
			err := unix.PtraceInterrupt(lt.pid)
			if err == nil {
				var ws unix.WaitStatus
				_, err = unix.Wait4(lt.pid, &ws, unix.WALL, nil)
			}
			if err == nil {
				err = unix.PtraceDetach(lt.pid)
			}
			released <- err
		}()
		if err := <-seized; err != nil {
			t.Fatalf("PTRACE_SEIZE: %v", err)
		}
		refuse(t, lt.pid, "already traced by process "+strconv.Itoa(os.Getpid()), "detach")
		close(release)
		if err := <-released; err != nil {
			t.Fatalf("detaching: %v", err)
		}
		lt.checkRunning(t, 5*time.Second)
	})
	t.Run("zombie", func(t *testing.T) {
		t.Parallel()
		cmd := exec.Command("true")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Wait()
		for deadline := time.Now().Add(10 * time.Second); !strings.HasPrefix(statusField(t, cmd.Process.Pid, "State"), "Z"); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("true never became a zombie")
			}
		}
		refuse(t, cmd.Process.Pid, "zombie")
	})
	t.Run("no-such-process", func(t *testing.T) {
		t.Parallel()
		cmd := exec.Command("true")
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		refuse(t, cmd.Process.Pid, "no such process")
	})
	t.Run("other-user", func(t *testing.T) {
		t.Parallel()
		if os.Geteuid() != 0 {
			testenv.Unavailable(t, "running coreunwind as another user needs root")
		}
		lt := startLive(t, "liveproc", false, "nospin")
		// A copy of coreunwind the user nobody may run.
		dir, err := os.MkdirTemp("", "coreunwind-live-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		bin := filepath.Join(dir, "coreunwind")
		b, err := os.ReadFile(coreunwindBin)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, b, 0o755); err != nil || os.Chmod(dir, 0o755) != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "-p", strconv.Itoa(lt.pid))
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != exitAttach {
			t.Errorf("exit code %d, want %d: %s", code, exitAttach, out)
		}
		if !strings.Contains(string(out), "not permitted") || !strings.Contains(string(out), "uid 0") {
			t.Errorf("the refusal does not say whose process it is and why: %s", out)
		}
		lt.checkRunning(t, 2*time.Second)
	})
}

// fmtStates prints thread states as "tid:S tid:t".
func fmtStates(states map[int]byte) string {
	var parts []string
	for tid, st := range states {
		parts = append(parts, fmt.Sprintf("%d:%c", tid, st))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

// TestLiveSampling: -p PID --samples N takes N snapshots into one valid
// profile, one sample per thread per snapshot, with the threads' stacks
// (the spinner's spin among them); and a process whose threads come and
// go all the time (some exit while being stopped) is sampled without
// error and left running.
func TestLiveSampling(t *testing.T) {
	t.Parallel()
	t.Run("liveproc", func(t *testing.T) {
		t.Parallel()
		lt := startLive(t, "liveproc", true)
		out := filepath.Join(t.TempDir(), "live.pb.gz")
		r := runCoreunwind(t, "-p", strconv.Itoa(lt.pid), "--format", "pprof", "-o", out, "--samples", "4", "--interval", "20ms")
		if r.Code != exitOK {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		p := readProfile(t, out)
		if len(p.Sample) != 4*5 {
			t.Errorf("%d samples, want 4 snapshots of 5 threads", len(p.Sample))
		}
		spins := 0
		for _, s := range p.Sample {
			if len(s.Location) > 0 && len(s.Location[0].Line) > 0 && s.Location[0].Line[0].Function.Name == "spin" {
				spins++
			}
		}
		if spins != 4 {
			t.Errorf("%d samples in spin, want 4", spins)
		}
		lt.checkRunning(t, 2*time.Second)
	})
	t.Run("thread-churn", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		exe := testenv.BuildC(t, dir, "churn", threadChurn, "-O1", "-g", "-pthread")
		cmd := exec.Command(exe)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			cmd.Process.Kill()
			cmd.Wait()
		}()
		lt := &liveTarget{exe: exe, pid: cmd.Process.Pid}
		out := filepath.Join(dir, "churn.pb.gz")
		r := runCoreunwind(t, "-p", strconv.Itoa(lt.pid), "--format", "pprof", "-o", out, "--samples", "30", "--interval", "1ms")
		if r.Code != exitOK && r.Code != exitPartial {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		if p := readProfile(t, out); len(p.Sample) < 30 {
			t.Errorf("%d samples from 30 snapshots of at least one thread", len(p.Sample))
		}
		lt.checkRunning(t, 2*time.Second)
	})
}

// threadChurn starts and joins short-lived threads without pause.
const threadChurn = `
#include <pthread.h>
static void *brief(void *arg) { return arg; }
int main(void) {
	for (;;) {
		pthread_t t[8];
		for (int i = 0; i < 8; i++)
			pthread_create(&t[i], 0, brief, 0);
		for (int i = 0; i < 8; i++)
			pthread_join(t[i], 0);
	}
}
`

func readProfile(t *testing.T, path string) *profile.Profile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	return p
}

// signalWaiter prints "usr2" each time SIGUSR2 arrives.
const signalWaiter = `
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
static volatile sig_atomic_t got;
static void on_usr2(int sig) { got = sig; }
int main(void) {
	signal(SIGUSR2, on_usr2);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		pause();
		if (got) {
			got = 0;
			printf("usr2\n");
			fflush(stdout);
		}
	}
}
`

// TestLiveSignalDuringSnapshot: a signal sent to the process while
// coreunwind holds it stopped is delivered once the threads are let go,
// not lost.
func TestLiveSignalDuringSnapshot(t *testing.T) {
	t.Parallel()
	exe := testenv.BuildC(t, t.TempDir(), "sigwait", signalWaiter, "-O1", "-g")
	target := exec.Command(exe)
	out, err := target.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := target.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		target.Process.Kill()
		target.Wait()
	}()
	lines := bufio.NewReader(out)
	if line, err := lines.ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("not ready: %q %v", line, err)
	}
	needCoreunwind(t)
	cmd := exec.Command(coreunwindBin, "-p", strconv.Itoa(target.Process.Pid))
	cmd.Env = append(os.Environ(), "COREUNWIND_TEST_HOLD_STOPPED=1s")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	br := bufio.NewReader(stderr)
	if line, err := br.ReadString('\n'); err != nil || !strings.Contains(line, "holding process") {
		t.Fatalf("coreunwind did not hold the process: %q %v", line, err)
	}
	target.Process.Signal(syscall.SIGUSR2)
	rest, _ := io.ReadAll(br)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("coreunwind: %v: %s", err, rest)
	}
	got := make(chan string, 1)
	go func() {
		line, _ := lines.ReadString('\n')
		got <- line
	}()
	select {
	case line := <-got:
		if line != "usr2\n" {
			t.Errorf("the process printed %q, want usr2", line)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("SIGUSR2 sent during the snapshot never reached the process")
	}
}

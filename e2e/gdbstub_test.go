package e2e

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/elfcore"
	"github.com/coreunwind/coreunwind/internal/refbt"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// Cores written from qemu's gdbstub. qemu-user 7.2 writes no core for
// riscv64 or sparc64, and gdb's gcore over the stub is unusable, so the
// tests write the core themselves from what gdb-multiarch reads through
// the stub at the fatal signal (registers of every thread, the program's
// segments, each stack, the auxv: testdata/gdbstub_snapshot.py), in the
// layout the arch's kernel gives its cores. The same gdb session's live
// backtraces are the reference, gdb-multiarch on the written core a
// second one.

// stubArch is what a snapshot core of an arch is made of.
type stubArch struct {
	cross   testenv.CrossArch
	machine elf.Machine
	order   interface {
		binary.ByteOrder
		binary.AppendByteOrder
	}
	// regs is the Python list of gdb's names of the registers of
	// pr_reg, in its order; nregs its length.
	regs  string
	nregs int
	// sp is the index of the stack pointer in regs; code the Python
	// tuple of the indexes of registers that point at code (pc, return
	// address).
	sp   int
	code string
	// prstatusSize is the size of the kernel's 64-bit struct
	// elf_prstatus (pr_reg at 112).
	prstatusSize int
	// atStop is what gdb runs at every stop before the backtraces
	// (sparc64: flush_windows).
	atStop string
	// signals are the arch's signal numbers by name.
	signals map[string]int
}

// stubLive is one run of a program under qemu's gdbstub.
type stubLive struct {
	crash
	// Stops are the current thread's backtraces at each signal but the
	// last; Threads is every thread's backtrace at the last (fatal) one.
	Stops   [][]refbt.Frame
	Threads map[int]*refbt.Thread
	Signal  int
}

// stubLiveCore runs a built program (its libraries from the cross
// sysroot) under a's qemu-user -g and gdb-multiarch, continues to the
// stops-th signal, records the backtraces and a snapshot of the process
// there and writes it as an ELF core (writeStubCore).
func stubLiveCore(t *testing.T, a stubArch, prog string, stops int, args ...string) stubLive {
	t.Helper()
	return stubLiveCoreEnv(t, a, nil, prog, stops, args...)
}

// stubLiveCoreEnv is stubLiveCore with env ("NAME=value") added to the
// program's environment, for programs whose memory the core must hold
// whole (a Go program's heap, where its goroutines and their stacks
// are): the snapshot also has every writable mapping of the guest
// (gdbstub_snapshot.py), and the crash's Output is what the program
// printed.
func stubLiveCoreEnv(t *testing.T, a stubArch, env []string, prog string, stops int, args ...string) stubLive {
	t.Helper()
	exe := buildProgram(t, prog)
	dir := t.TempDir()
	local := filepath.Join(dir, filepath.Base(exe))
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(local, b, 0o755); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, "snapshot.json")
	var out, output string
	for attempt := 1; ; attempt++ {
		var ok bool
		out, output, ok = stubLiveRun(t, a, env, dir, local, snap, stops, args...)
		if ok {
			break
		}
		// qemu-user hangs now and then running a many-threaded Go
		// program (one CI run in many, never when run again): one more
		// run from a fresh qemu, and a second hang fails the test.
		if attempt == 2 {
			t.Fatalf("live gdb under %s timed out twice", a.cross.Qemu)
		}
		t.Logf("live gdb under %s timed out; running the program again:\n%s", a.cross.Qemu, truncate(out, 2000))
	}
	head, all, ok := strings.Cut(out, "=== all threads\n")
	if !ok {
		t.Fatalf("live gdb did not reach stop %d:\n%s", stops, out)
	}
	live := stubLive{crash: crash{Dir: dir, Exe: local, Output: output}, Threads: refbt.ParseGDB(all)}
	stopped := refbt.ParseGDB(head)
	for i := 1; i < stops; i++ {
		th := stopped[i]
		if th == nil || len(th.Frames) == 0 {
			t.Fatalf("live gdb printed no backtrace at stop %d:\n%s", i, out)
		}
		live.Stops = append(live.Stops, th.Frames)
	}
	sigs := regexp.MustCompile(`received signal (SIG[A-Z0-9]+)`).FindAllStringSubmatch(out, -1)
	if len(sigs) != stops {
		t.Fatalf("live gdb saw %d signals, want %d:\n%s", len(sigs), stops, out)
	}
	live.Signal = a.signals[sigs[stops-1][1]]
	// e_flags (at 48 in an ELF64 header) says riscv64's float ABI; a
	// kernel core carries the program's.
	live.Core = writeStubCore(t, a, snap, local, a.order.Uint32(b[48:]), live.Signal)
	return live
}

// stubLiveRunLimit bounds one run of the live gdb under qemu (two runs
// take runTool's ten minutes): the programs reach their signal in
// under a minute on a loaded machine.
const stubLiveRunLimit = 5 * time.Minute

// stubLiveRun runs local (a copy of prog in dir) under a's qemu with its
// gdbstub, and a live gdb that continues to the stops-th signal, prints
// every thread's backtrace and saves the snapshot snap; it returns gdb's
// output, the program's, and false when gdb ran out of
// stubLiveRunLimit.
func stubLiveRun(t *testing.T, a stubArch, env []string, dir, local, snap string, stops int, args ...string) (out, output string, ok bool) {
	t.Helper()
	qemu := testenv.NeedTool(t, a.cross.Qemu)
	gdb := testenv.NeedTool(t, "gdb-multiarch")
	// The stub serves one connection; gdb retries for tcp connect-timeout
	// seconds while qemu starts listening on a port the kernel just had
	// free.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	q := exec.Command(qemu, append([]string{"-g", strconv.Itoa(port), local}, args...)...)
	q.Dir = dir
	q.Env = append(append(os.Environ(), "QEMU_LD_PREFIX="+a.cross.Sysroot()), env...)
	var qout bytes.Buffer
	q.Stdout, q.Stderr = &qout, &qout
	if err := q.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		q.Process.Kill()
		q.Wait()
	}()
	gargs := []string{"-batch", "-nx", "-iex", "set print frame-arguments none", "-iex", "set sysroot " + a.cross.Sysroot(),
		"-ex", "set tcp connect-timeout 30", "-ex", fmt.Sprintf("target remote 127.0.0.1:%d", port),
		"-ex", "source " + filepath.Join(repoRoot, "e2e", "testdata", "gdbstub_snapshot.py")}
	stop := func() {
		gargs = append(gargs, "-ex", "continue")
		if a.atStop != "" {
			gargs = append(gargs, "-ex", a.atStop)
		}
	}
	for i := 1; i < stops; i++ {
		stop()
		gargs = append(gargs, "-ex", fmt.Sprintf(`echo Thread 1.%d (stop %d):\n`, i, i),
			"-ex", "bt -frame-info location-and-address")
	}
	stop()
	// With env, the guest's writable mappings are qemu's own
	// (/proc/QEMU_PID/maps): see gdbstub_snapshot.py.
	qemuPid := "None"
	if env != nil {
		qemuPid = strconv.Itoa(q.Process.Pid)
	}
	gargs = append(gargs, "-ex", `echo === all threads\n`,
		"-ex", "thread apply all bt -frame-info location-and-address",
		"-ex", fmt.Sprintf("python snapshot(%q, %s, %d, %s, %s)", snap, a.regs, a.sp, a.code, qemuPid), local)
	out, ok = runToolWithin(t, stubLiveRunLimit, gdb, gargs...)
	// The program's output is complete once qemu is gone.
	q.Process.Kill()
	q.Wait()
	return out, qout.String(), ok
}

// stubSnapshot is what gdbstub_snapshot.py saves.
type stubSnapshot struct {
	Current int `json:"current"`
	Threads []struct {
		LWP  int      `json:"lwp"`
		Regs []uint64 `json:"regs"`
	} `json:"threads"`
	Auxv  string `json:"auxv"`
	Files string `json:"files"`
	Mem   []struct {
		Addr uint64 `json:"addr"`
		Hex  string `json:"hex"`
		// Zeros is the length of a run of zero pages (Hex empty).
		Zeros uint64 `json:"zeros"`
	} `json:"mem"`
}

// auxvLineRE is one line of gdb's "info auxv": the type number first, the
// value last (before a quoted string that gdb adds for AT_EXECFN).
var auxvLineRE = regexp.MustCompile(`(?m)^(\d+)\s+\S+\s.*?\s(0x[0-9a-f]+|\d+)(?: ".*")?$`)

// writeStubCore writes the snapshot as a's kernel lays out its core:
// NT_PRSTATUS per thread (the crashed one first, with the signal), in
// the kernel's 64-bit struct elf_prstatus with the snapshot's registers
// as pr_reg; NT_PRPSINFO; NT_AUXV; NT_FILE for the program and its
// shared objects (stubMappings); one PT_LOAD per run of pages
// (executable where an object's code segment is).
func writeStubCore(t *testing.T, a stubArch, path, exePath string, eflags uint32, sig int) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("gdb wrote no snapshot: %v", err)
	}
	var s stubSnapshot
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	o := a.order
	f := elfcore.File{Class: elf.ELFCLASS64, Order: o, Machine: a.machine, Flags: eflags}
	var rest []elfcore.Note
	for _, th := range s.Threads {
		if len(th.Regs) != a.nregs {
			t.Fatalf("thread %d: %d registers in the snapshot, want %d", th.LWP, len(th.Regs), a.nregs)
		}
		pr := make([]byte, a.prstatusSize) // struct elf_prstatus: pr_reg at 112
		if th.LWP == s.Current {
			o.PutUint32(pr[0:], uint32(sig))  // pr_info.si_signo
			o.PutUint16(pr[12:], uint16(sig)) // pr_cursig
		}
		o.PutUint32(pr[32:], uint32(th.LWP)) // pr_pid
		for i, v := range th.Regs {
			o.PutUint64(pr[112+8*i:], v)
		}
		n := elfcore.Note{Name: "CORE", Type: uint32(elf.NT_PRSTATUS), Desc: pr}
		if th.LWP == s.Current {
			f.Notes = append(f.Notes, n)
		} else {
			rest = append(rest, n)
		}
	}
	if len(f.Notes) != 1 {
		t.Fatalf("the current thread %d is not among the snapshot's threads", s.Current)
	}
	f.Notes = append(f.Notes, rest...)
	ps := make([]byte, 136) // struct elf_prpsinfo: pr_fname at 40, pr_psargs at 56
	copy(ps[40:56], filepath.Base(exePath))
	copy(ps[56:136], exePath)
	f.Notes = append(f.Notes, elfcore.Note{Name: "CORE", Type: uint32(elf.NT_PRPSINFO), Desc: ps})
	var auxv []byte
	for _, m := range auxvLineRE.FindAllStringSubmatch(s.Auxv, -1) {
		typ, _ := strconv.ParseUint(m[1], 10, 64)
		val, _ := strconv.ParseUint(m[2], 0, 64)
		auxv = o.AppendUint64(o.AppendUint64(auxv, typ), val)
	}
	if len(auxv) < 3*16 {
		t.Fatalf("gdb's info auxv has no entries:\n%s", s.Auxv)
	}
	f.Notes = append(f.Notes, elfcore.Note{Name: "CORE", Type: 6 /* NT_AUXV */, Desc: auxv})
	maps := stubMappings(t, a, s.Files, exePath)
	ntFile := o.AppendUint64(o.AppendUint64(nil, uint64(len(maps))), 4096)
	var names []byte
	for _, m := range maps {
		ntFile = o.AppendUint64(o.AppendUint64(o.AppendUint64(ntFile, m.start), m.end), m.offset/4096)
		names = append(append(names, m.name...), 0)
	}
	f.Notes = append(f.Notes, elfcore.Note{Name: "CORE", Type: 0x46494c45 /* NT_FILE */, Desc: append(ntFile, names...)})
	for _, m := range s.Mem {
		data, err := hex.DecodeString(m.Hex)
		if err != nil {
			t.Fatal(err)
		}
		if m.Zeros > 0 {
			data = make([]byte, m.Zeros)
		}
		flags := elf.PF_R | elf.PF_W
		for _, mp := range maps {
			if mp.exec && m.Addr >= mp.start && m.Addr < mp.end {
				flags = elf.PF_R | elf.PF_X
			}
		}
		f.Segments = append(f.Segments, elfcore.Segment{Flags: flags, Vaddr: m.Addr, Data: data})
	}
	core := filepath.Join(filepath.Dir(path), "core")
	if err := f.Write(core); err != nil {
		t.Fatal(err)
	}
	return core
}

// stubMapping is one file mapping of the process, as NT_FILE lists it.
type stubMapping struct {
	start, end, offset uint64
	name               string // the guest's path: the sysroot's files as /lib/...
	exec               bool
}

// textLineRE is a .text line of gdb's "info files": the program's (no
// "in") or a shared object's.
var textLineRE = regexp.MustCompile(`(?m)^\s*0x([0-9a-f]+) - 0x[0-9a-f]+ is \.text(?: in (.+))?$`)

// stubMappings derives the process's file mappings from where gdb says each
// object's .text is loaded: the load bias, applied to the object's
// PT_LOAD segments (page-aligned, as the kernel and ld.so map them).
func stubMappings(t *testing.T, a stubArch, files, exePath string) []stubMapping {
	t.Helper()
	var maps []stubMapping
	seen := map[string]bool{}
	for _, m := range textLineRE.FindAllStringSubmatch(files, -1) {
		path := m[2]
		if path == "" {
			path = exePath
		}
		if seen[path] {
			continue
		}
		seen[path] = true
		textAddr, _ := strconv.ParseUint(m[1], 16, 64)
		f, err := elf.Open(path)
		if err != nil {
			t.Fatalf("gdb's object %s: %v", path, err)
		}
		text := f.Section(".text")
		if text == nil {
			f.Close()
			t.Fatalf("%s has no .text", path)
		}
		bias := textAddr - text.Addr
		name := path
		if rel, ok := strings.CutPrefix(path, a.cross.Sysroot()); ok {
			name = rel
		}
		for _, p := range f.Progs {
			if p.Type != elf.PT_LOAD {
				continue
			}
			start := (bias + p.Vaddr) &^ 4095
			end := (bias + p.Vaddr + p.Filesz + 4095) &^ 4095
			maps = append(maps, stubMapping{start: start, end: end, offset: p.Off &^ 4095, name: name, exec: p.Flags&elf.PF_X != 0})
		}
		f.Close()
	}
	if !seen[exePath] {
		t.Fatalf("gdb's info files has no .text of the program:\n%s", files)
	}
	return maps
}

// expectStubSignalFrames checks the crashed thread th of a snapshot core
// whose handler crashed: frame 2 is the trampoline the handler returns
// to (its first two words, as gdb reads them from the core, are
// trampoline), and from frame 3 on come the frames the live gdb saw
// interrupted at the signal, the first with registers from the signal
// context.
func expectStubSignalFrames(t *testing.T, live stubLive, th *reportThread, interrupted []refbt.Frame, trampoline string) {
	t.Helper()
	if th == nil || len(th.Frames) < 3+len(interrupted) {
		t.Fatalf("crashed thread %v; live gdb at the signal %v", th, interrupted)
	}
	tramp, _ := th.Frames[2].pc()
	gdb := testenv.NeedTool(t, "gdb-multiarch")
	mem := runTool(t, gdb, "-batch", "-nx", "-ex", fmt.Sprintf("x/2wx %#x", tramp), live.Exe, live.Core)
	if !strings.Contains(mem, trampoline) {
		t.Errorf("frame 2 (pc %#x) is not the trampoline (%s); gdb reads:\n%s", tramp, trampoline, mem)
	}
	for i, f := range interrupted {
		pc, _ := th.Frames[3+i].pc()
		if pc != f.PC {
			t.Errorf("frame %d: pc %#x, live gdb at the signal %#x\n%s", 3+i, pc, f.PC, formatFrames(th, 20))
		}
	}
	if f := th.Frames[3]; f.Trust != "context" {
		t.Errorf("the interrupted frame's trust = %q, want context (registers from the signal context)", f.Trust)
	}
}

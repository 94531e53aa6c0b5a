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

// RISC-V 64 cores. qemu-riscv64 7.2 writes no core, and gdb's gcore over
// qemu's gdbstub is unusable, so the cores here are written by the test
// itself from what gdb-multiarch reads through the gdbstub at the fatal
// signal (registers of every thread, the program's segments, each stack,
// the auxv: rvLiveCore). The same gdb session's live backtraces are the
// reference, and gdb-multiarch on the written core a second one. Beside
// them, the one real riscv64 kernel core elfutils ships.

var rv = testenv.RISCV64

func init() {
	gcc := rv.CC()
	add := func(name, out string, flags ...string) {
		programs[name] = cc(gcc, out, flags...)
	}
	add("rv-static", "crash", "-g", "-O1", "crossarch.c", "-lpthread", "-static")
	add("rv-nofp", "crash", "-g", "-O2", "-fomit-frame-pointer", "crossarch.c", "-lpthread", "-static")
	add("rv-fp", "crash", "-g", "-O2", "-fno-omit-frame-pointer", "crossarch.c", "-lpthread", "-static")
	add("rv-dyn", "crash", "-g", "-O1", "crossarch.c", "-lpthread")
	add("rv-nullfn", "nullfn", "-g", "-O2", "nullfn.c", "-static")
	add("rv-crashkinds", "crashkinds", "-g", "-O0", "crashkinds.c", "-lpthread", "-static")
	// Functions without CFI, built with frame pointers (-O0): only the
	// frame-pointer chain gets through them.
	programs["rv-nocfi"] = nocfiBuild(rv.Triple+"-", nil, []string{"-static"})
}

// TestRISCV64ElfutilsCore: elfutils' testfile-riscv64-core, written by a
// riscv64 kernel for a program (/tmp/a.out, not shipped) whose main reads
// 0x12345678 and is a leaf that never saves ra. gdb and eu-stack give one
// frame: neither has the program or its libc (NT_FILE names
// /lib64/libc-2.27.so). coreunwind gives two: frame 1 is ra, the return
// into __libc_start_main, and there it must stop: libc's text is not in
// the core (its segment is mapped, not dumped), so there is no code, no
// CFI and no frame size to go further with (a stack scan from there
// would only find stale words). The thread says so: it stopped in
// libc-2.27.so, whose file was not found.
func TestRISCV64ElfutilsCore(t *testing.T) {
	t.Parallel()
	core := testenv.ElfutilsFile(t, "testfile-riscv64-core")
	eu, _ := runEuStack(t, "", core)
	gdb := testenv.NeedTool(t, "gdb-multiarch")
	out := runTool(t, gdb, "-batch", "-nx", "-ex", "set architecture riscv:rv64", "-ex", "core-file "+core,
		"-ex", "p/x $pc", "-ex", "p/x $ra", "-ex", "x/7i $pc-14")
	regs := regexp.MustCompile(`(?m)^\$\d+ = (0x[0-9a-f]+)$`).FindAllStringSubmatch(out, -1)
	if len(regs) != 2 {
		t.Fatalf("gdb printed no pc and ra:\n%s", out)
	}
	pc, _ := strconv.ParseUint(regs[0][1], 0, 64)
	ra, _ := strconv.ParseUint(regs[1][1], 0, 64)
	// The crashing function is the leaf "addi sp,sp,-16; sd s0,8(sp);
	// addi s0,sp,16; lui a5,...; addi a5,...; lw a5,0(a5)": ra untouched.
	if !strings.Contains(out, "sd\ts0,8(sp)") || strings.Contains(out, "sd\tra") {
		t.Fatalf("the code before the pc is not the expected leaf prologue:\n%s", out)
	}
	rep, _ := unwindJSON(t, nil, core)
	if rep.Core.Arch != "riscv64" {
		t.Errorf("arch = %q, want riscv64", rep.Core.Arch)
	}
	th := rep.thread(rep.Core.CrashedTID)
	if th == nil {
		t.Fatalf("no crashed thread in the report")
	}
	var got []uint64
	for _, f := range th.Frames {
		p, _ := f.pc()
		got = append(got, p)
	}
	if fmt.Sprint(got) != fmt.Sprint([]uint64{pc, ra}) {
		t.Errorf("pcs %x, want gdb's pc and ra %x\n%s", got, []uint64{pc, ra}, formatFrames(th, 10))
	}
	if th.Error == nil || !th.Truncated || !strings.Contains(*th.Error, "in libc-2.27.so (not found") {
		t.Errorf("the thread does not say it stopped in libc-2.27.so for want of the file: truncated %v, error %v", th.Truncated, th.Error)
	}
	if e := eu[rep.Core.CrashedTID]; e == nil || len(e.Frames) == 0 || e.Frames[0].PC != pc {
		t.Errorf("eu-stack's frame 0 is not gdb's pc %#x: %v", pc, eu)
	}
}

// rvLive is one run of a program under qemu-riscv64's gdbstub.
type rvLive struct {
	crash
	// Stops are the current thread's backtraces at each signal but the
	// last; Threads is every thread's backtrace at the last (fatal) one.
	Stops   [][]refbt.Frame
	Threads map[int]*refbt.Thread
	Signal  int
}

// rvSignals are the signal numbers of the generic Linux ABI riscv64 uses.
var rvSignals = map[string]int{"SIGILL": 4, "SIGTRAP": 5, "SIGABRT": 6, "SIGBUS": 7, "SIGFPE": 8, "SIGUSR1": 10, "SIGSEGV": 11}

// rvLiveCore runs a built program (its libraries from the cross sysroot)
// under qemu-riscv64 -g and gdb-multiarch, continues to the stops-th signal, records the backtraces
// and a snapshot of the process there (testdata/riscv64_snapshot.py) and
// writes it as an ELF core (writeRVCore).
func rvLiveCore(t *testing.T, prog string, stops int, args ...string) rvLive {
	t.Helper()
	return rvLiveCoreEnv(t, nil, prog, stops, args...)
}

// rvLiveCoreEnv is rvLiveCore with env ("NAME=value") added to the
// program's environment. The snapshot has every writable mapping of the
// program too (a Go program's heap: riscv64_snapshot.py), and the
// crash's Output is what the program printed.
func rvLiveCoreEnv(t *testing.T, env []string, prog string, stops int, args ...string) rvLive {
	t.Helper()
	qemu := testenv.NeedTool(t, rv.Qemu)
	gdb := testenv.NeedTool(t, "gdb-multiarch")
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
	q.Env = append(append(os.Environ(), "QEMU_LD_PREFIX="+rv.Sysroot()), env...)
	var output bytes.Buffer
	q.Stdout, q.Stderr = &output, &output
	if err := q.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		q.Process.Kill()
		q.Wait()
	}()
	snap := filepath.Join(dir, "snapshot.json")
	gargs := []string{"-batch", "-nx", "-iex", "set print frame-arguments none", "-iex", "set sysroot " + rv.Sysroot(),
		"-ex", "set tcp connect-timeout 30", "-ex", fmt.Sprintf("target remote 127.0.0.1:%d", port)}
	for i := 1; i < stops; i++ {
		gargs = append(gargs, "-ex", "continue", "-ex", fmt.Sprintf(`echo Thread 1.%d (stop %d):\n`, i, i),
			"-ex", "bt -frame-info location-and-address")
	}
	gargs = append(gargs, "-ex", "continue", "-ex", `echo === all threads\n`,
		"-ex", "thread apply all bt -frame-info location-and-address",
		"-ex", "source "+filepath.Join(repoRoot, "e2e", "testdata", "riscv64_snapshot.py"),
		"-ex", fmt.Sprintf("python snapshot(%q, %d)", snap, q.Process.Pid), local)
	start := time.Now()
	out := runTool(t, gdb, gargs...)
	q.Process.Kill()
	q.Wait()
	head, all, ok := strings.Cut(out, "=== all threads\n")
	if !ok {
		t.Fatalf("live gdb did not reach stop %d (after %v):\n%s", stops, time.Since(start), out)
	}
	live := rvLive{crash: crash{Dir: dir, Exe: local, Output: output.String()}, Threads: refbt.ParseGDB(all)}
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
	live.Signal = rvSignals[sigs[stops-1][1]]
	// e_flags (at 48 in an ELF64 header) says the float ABI; a riscv64
	// kernel core carries the program's.
	live.Core = writeRVCore(t, snap, local, binary.LittleEndian.Uint32(b[48:]), live.Signal)
	return live
}

// rvSnapshot is what riscv64_snapshot.py saves.
type rvSnapshot struct {
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

// writeRVCore writes the snapshot as the kernel lays out a riscv64 core:
// NT_PRSTATUS per thread (the crashed one first, with the signal), in
// the kernel's 64-bit struct elf_prstatus with pr_reg a struct
// user_regs_struct; NT_PRPSINFO; NT_AUXV; NT_FILE for the program and
// its shared objects (rvMappings); one PT_LOAD per run of pages
// (executable where an object's code segment is).
func writeRVCore(t *testing.T, path, exePath string, eflags uint32, sig int) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("gdb wrote no snapshot: %v", err)
	}
	var s rvSnapshot
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	le := binary.LittleEndian
	f := elfcore.File{Class: elf.ELFCLASS64, Order: le, Machine: elf.EM_RISCV, Flags: eflags}
	var rest []elfcore.Note
	for _, th := range s.Threads {
		if len(th.Regs) != 32 {
			t.Fatalf("thread %d: %d registers in the snapshot", th.LWP, len(th.Regs))
		}
		pr := make([]byte, 376) // struct elf_prstatus: pr_reg at 112, pr_fpvalid at 368
		if th.LWP == s.Current {
			le.PutUint32(pr[0:], uint32(sig))  // pr_info.si_signo
			le.PutUint16(pr[12:], uint16(sig)) // pr_cursig
		}
		le.PutUint32(pr[32:], uint32(th.LWP)) // pr_pid
		for i, v := range th.Regs {
			le.PutUint64(pr[112+8*i:], v)
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
		auxv = le.AppendUint64(le.AppendUint64(auxv, typ), val)
	}
	if len(auxv) < 3*16 {
		t.Fatalf("gdb's info auxv has no entries:\n%s", s.Auxv)
	}
	f.Notes = append(f.Notes, elfcore.Note{Name: "CORE", Type: 6 /* NT_AUXV */, Desc: auxv})
	maps := rvMappings(t, s.Files, exePath)
	ntFile := le.AppendUint64(le.AppendUint64(nil, uint64(len(maps))), 4096)
	var names []byte
	for _, m := range maps {
		ntFile = le.AppendUint64(le.AppendUint64(le.AppendUint64(ntFile, m.start), m.end), m.offset/4096)
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

// TestRISCV64Live: programs built here, crashed under qemu-riscv64's
// gdbstub; the core is written from gdb's snapshot at the fatal signal.
// The references are the live gdb's backtraces (every thread, at the
// signal) and gdb-multiarch on the written core.
func TestRISCV64Live(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, prog, mode string
		sig              int
		funcs            []string
	}{
		{"static-segv", "rv-static", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker", "start_thread"}},
		{"static-abort", "rv-static", "abort", 6, []string{"raise", "abort", "crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"O2-nofp-segv", "rv-nofp", "segv", 11, []string{"crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"O2-fp-abort", "rv-fp", "abort", 6, []string{"raise", "abort", "crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"dynamic-abort", "rv-dyn", "abort", 6, []string{"raise", "abort", "crash_leaf", "crash_mid", "crash_top", "worker"}},
		{"null-function-pointer", "rv-nullfn", "", 11, []string{"dispatch", "main"}},
		{"no-cfi", "rv-nocfi", "", 11, []string{"crash_cb", "nocfi_c", "nocfi_b", "nocfi_a", "main"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var args []string
			if tc.mode != "" {
				args = append(args, tc.mode)
			}
			live := rvLiveCore(t, tc.prog, 1, args...)
			if tc.prog == "rv-nocfi" {
				expectNoFDE(t, live.Exe, "nocfi_a", "nocfi_b", "nocfi_c")
			}
			var flags []string
			eu := pcsOnly(live.Threads)
			if tc.prog == "rv-dyn" {
				// eu-stack has no sysroot option: the live gdb is both
				// references (pcs only for the second).
				flags = []string{"--sysroot", rv.Sysroot()}
			} else {
				eu, _ = runEuStack(t, live.Exe, live.Core)
			}
			// The written core is what the process was: gdb reads it
			// (NT_PRSTATUS in the kernel's layout, the memory) and
			// prints the live backtraces (then goes on past main, which
			// the live gdb does not).
			onCore, _ := runGDBTool(t, "gdb-multiarch", live.Exe, live.Core, "-iex", "set print frame-arguments none", "-iex", "set sysroot "+rv.Sysroot())
			for tid, th := range live.Threads {
				want := pcList(th.Frames)
				if c := onCore[tid]; c == nil || len(c.Frames) < len(want) || fmt.Sprint(pcList(c.Frames)[:len(want)]) != fmt.Sprint(want) {
					t.Errorf("thread %d: gdb on the written core %v, live %x", tid, c, want)
				}
			}
			rep, _ := unwindJSON(t, flags, live.Core, live.Exe)
			compareWithReferences(t, live.Threads, eu, rep)
			th := expectCrashedThread(t, rep, "riscv64", tc.sig, tc.funcs...)
			if live.Signal != tc.sig {
				t.Errorf("live gdb's signal %d, want %d", live.Signal, tc.sig)
			}
			if tc.prog == "rv-nocfi" {
				rvFramePointerOnly(t, live, th)
			}
			if tc.prog == "rv-dyn" {
				// The live gdb stops inside libc after two frames of the
				// main thread (__pthread_clockjoin_ex has no CFI, and the
				// cross libc no symbols for it); coreunwind goes on, as
				// eu-stack does on the static program's core.
				for i := range rep.Threads {
					if m := &rep.Threads[i]; m.TID != rep.Core.CrashedTID && len(m.Frames) > 0 && m.Frames[len(m.Frames)-1].Function == "_start" {
						expectFunctions(t, m, "main", "__libc_start_main", "_start")
						return
					}
				}
				t.Errorf("no thread of the dynamic program reaches _start")
			}
		})
	}
}

// rvFramePointerOnly unwinds the no-CFI core again with a copy of the
// program without debug info and without the symbols of the CFI-less
// functions: their prologues
// cannot be found, so only the frame-pointer chain (s0, with ra at s0-8
// and the caller's s0 at s0-16) gets through them. The pcs must be the
// ones found with symbols (which the live gdb confirmed).
func rvFramePointerOnly(t *testing.T, live rvLive, want *reportThread) {
	t.Helper()
	objcopy := testenv.NeedTool(t, rv.Triple+"-objcopy")
	exe := filepath.Join(t.TempDir(), "nocfi")
	runTool(t, objcopy, "--strip-debug", "-N", "nocfi_a", "-N", "nocfi_b", "-N", "nocfi_c", live.Exe, exe)
	rep, _ := unwindJSON(t, nil, live.Core, exe)
	th := rep.thread(rep.Core.CrashedTID)
	if th == nil || len(th.Frames) != len(want.Frames) {
		t.Fatalf("without the nocfi symbols: %v, want the %d frames found with them\n%s", th, len(want.Frames), formatFrames(want, 20))
	}
	fp := 0
	for i, f := range th.Frames {
		if f.PC != want.Frames[i].PC {
			t.Errorf("without the nocfi symbols, frame %d: pc %s, want %s\n%s", i, f.PC, want.Frames[i].PC, formatFrames(th, 20))
		}
		if f.Trust == "frame_pointer" {
			fp++
		}
	}
	if fp < 3 {
		t.Errorf("%d frames by the frame-pointer chain, want 3 (the callers of crash_cb, nocfi_c and nocfi_b)\n%s", fp, formatFrames(th, 20))
	}
}

// TestRISCV64SignalHandlerCrash: the worker raises SIGUSR1 and the
// handler crashes, so the stack holds qemu's rt_sigreturn trampoline and
// the kernel-layout signal frame. The live gdb stops twice in one run
// (qemu-user has no address randomization): at SIGUSR1, the worker's
// stack is what the signal context must give below the trampoline; at
// SIGSEGV in the handler, gdb's frames are the whole reference (gdb
// knows the trampoline too).
func TestRISCV64SignalHandlerCrash(t *testing.T) {
	t.Parallel()
	live := rvLiveCore(t, "rv-static", 2, "signal")
	rep, _ := unwindJSON(t, nil, live.Core, live.Exe)
	eu, _ := runEuStack(t, live.Exe, live.Core)
	compareWithReferences(t, live.Threads, eu, rep)
	th := rep.thread(rep.Core.CrashedTID)
	atSignal := live.Stops[0]
	if th == nil || len(th.Frames) < 3+len(atSignal) {
		t.Fatalf("crashed thread %v; live gdb at the signal %v", th, atSignal)
	}
	// Frame 2 is the trampoline the handler returns to: qemu's page
	// holding "li a7, 139; ecall", read from the core by gdb.
	tramp, _ := th.Frames[2].pc()
	gdb := testenv.NeedTool(t, "gdb-multiarch")
	mem := runTool(t, gdb, "-batch", "-nx", "-ex", fmt.Sprintf("x/2wx %#x", tramp), live.Exe, live.Core)
	if !strings.Contains(mem, "0x08b00893\t0x00000073") {
		t.Errorf("frame 2 (pc %#x) is not the rt_sigreturn trampoline; gdb reads:\n%s", tramp, mem)
	}
	for i, f := range atSignal {
		pc, _ := th.Frames[3+i].pc()
		if pc != f.PC {
			t.Errorf("frame %d: pc %#x, live gdb at SIGUSR1 %#x\n%s", 3+i, pc, f.PC, formatFrames(th, 20))
		}
	}
	if f := th.Frames[3]; f.Trust != "context" {
		t.Errorf("the interrupted frame's trust = %q, want context (registers from the signal context)", f.Trust)
	}
	expectFunctions(t, th, "handler_crash", "on_usr1", "raise", "crash_leaf", "crash_mid", "crash_top", "worker")
}

// rvMapping is one file mapping of the process, as NT_FILE lists it.
type rvMapping struct {
	start, end, offset uint64
	name               string // the guest's path: the sysroot's files as /lib/...
	exec               bool
}

// textLineRE is a .text line of gdb's "info files": the program's (no
// "in") or a shared object's.
var textLineRE = regexp.MustCompile(`(?m)^\s*0x([0-9a-f]+) - 0x[0-9a-f]+ is \.text(?: in (.+))?$`)

// rvMappings derives the process's file mappings from where gdb says each
// object's .text is loaded: the load bias, applied to the object's
// PT_LOAD segments (page-aligned, as the kernel and ld.so map them).
func rvMappings(t *testing.T, files, exePath string) []rvMapping {
	t.Helper()
	var maps []rvMapping
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
		if rel, ok := strings.CutPrefix(path, rv.Sysroot()); ok {
			name = rel
		}
		for _, p := range f.Progs {
			if p.Type != elf.PT_LOAD {
				continue
			}
			start := (bias + p.Vaddr) &^ 4095
			end := (bias + p.Vaddr + p.Filesz + 4095) &^ 4095
			maps = append(maps, rvMapping{start: start, end: end, offset: p.Off &^ 4095, name: name, exec: p.Flags&elf.PF_X != 0})
		}
		f.Close()
	}
	if !seen[exePath] {
		t.Fatalf("gdb's info files has no .text of the program:\n%s", files)
	}
	return maps
}

// TestRISCV64PprofAndTriage: pprof and triage on a riscv64 core go
// through the same generic paths as every other arch's.
func TestRISCV64PprofAndTriage(t *testing.T) {
	t.Parallel()
	live := rvLiveCore(t, "rv-static", 1, "segv")
	checkPprofAndTriage(t, live.crash, "SIGSEGV")
}

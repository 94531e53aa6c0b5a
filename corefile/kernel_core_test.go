package corefile

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/unwind"
)

// checkAgainstTools compares what Open decoded with eu-readelf -n and
// readelf -l on the same core.
func checkAgainstTools(t *testing.T, c *Core, core string) {
	t.Helper()
	eu := readEUNotes(t, core)
	var tids, cursigs []int
	for _, th := range c.Threads {
		tids = append(tids, th.TID)
		cursigs = append(cursigs, th.Signal)
	}
	if !slices.Equal(tids, eu.ThreadPIDs) {
		t.Errorf("thread ids %v, eu-readelf says %v", tids, eu.ThreadPIDs)
	}
	if !slices.Equal(cursigs, eu.Cursigs) {
		t.Errorf("cursigs %v, eu-readelf says %v", cursigs, eu.Cursigs)
	}
	if c.PID != eu.PsPID || c.Comm != eu.Fname || c.CommandLine != eu.Psargs {
		t.Errorf("process %d %q %q, eu-readelf says %d %q %q", c.PID, c.Comm, c.CommandLine, eu.PsPID, eu.Fname, eu.Psargs)
	}
	if c.Signal == nil || c.Signal.Number != eu.SigNo || c.Signal.Code != eu.SigCode {
		t.Errorf("signal %+v, eu-readelf says signo %d code %d", c.Signal, eu.SigNo, eu.SigCode)
	}
	if eu.FaultAddr != "" && (!c.Signal.HasAddr || fmt.Sprintf("%#x", c.Signal.Addr) != eu.FaultAddr && !(c.Signal.Addr == 0 && eu.FaultAddr == "0")) {
		t.Errorf("fault address %#x (has %v), eu-readelf says %s", c.Signal.Addr, c.Signal.HasAddr, eu.FaultAddr)
	}
	if eu.SenderPID >= 0 && (!c.Signal.HasSender || c.Signal.SenderPID != eu.SenderPID) {
		t.Errorf("sender %d (has %v), eu-readelf says %d", c.Signal.SenderPID, c.Signal.HasSender, eu.SenderPID)
	}
	for name, tag := range map[string]uint64{"ENTRY": AT_ENTRY, "PHDR": AT_PHDR, "PAGESZ": AT_PAGESZ, "SYSINFO_EHDR": AT_SYSINFO_EHDR, "EXECFN": AT_EXECFN, "BASE": AT_BASE} {
		want, inEU := eu.Auxv[name]
		got, ok := c.AuxVal(tag)
		if inEU != ok || got != want {
			t.Errorf("auxv %s = %#x (%v), eu-readelf says %#x (%v)", name, got, ok, want, inEU)
		}
	}
	if c.VDSO != eu.Auxv["SYSINFO_EHDR"] {
		t.Errorf("VDSO %#x, eu-readelf says %#x", c.VDSO, eu.Auxv["SYSINFO_EHDR"])
	}
	if !slices.Equal(c.Mappings, eu.Files) {
		t.Errorf("NT_FILE: got %d entries, eu-readelf %d\ngot  %v\nwant %v", len(c.Mappings), len(eu.Files), c.Mappings, eu.Files)
	}
	if loads := readelfLoads(t, core); !slices.Equal(c.Segments, loads) {
		t.Errorf("segments differ from readelf -l:\ngot  %v\nwant %v", c.Segments, loads)
	}
}

func readU64(t *testing.T, c *Core, addr uint64) uint64 {
	t.Helper()
	var b [8]byte
	if err := c.ReadMem(addr, b[:]); err != nil {
		t.Fatalf("ReadMem(%#x): %v", addr, err)
	}
	return binary.LittleEndian.Uint64(b[:])
}

// checkMemory checks the values the program printed: a written global
// (in the core) and a read-only string (only in the file).
func checkMemory(t *testing.T, c *Core, f crashFacts) {
	t.Helper()
	if got := readU64(t, c, f.GlobalAddr); got != f.Global {
		t.Errorf("global at %#x: read %#x, program printed %#x", f.GlobalAddr, got, f.Global)
	}
	buf := make([]byte, len(f.Rodata))
	if err := c.ReadMem(f.RodataAddr, buf); err != nil || string(buf) != f.Rodata {
		t.Errorf("rodata at %#x: %q, %v; program printed %q", f.RodataAddr, buf, err, f.Rodata)
	}
	// The string must have come from the file: the kernel does not dump
	// read-only file pages after the first.
	if err := c.readCore(f.RodataAddr, buf); !errors.Is(err, unwind.ErrUnavailable) {
		t.Errorf("rodata at %#x is in the core itself (err %v): the overlay test proves nothing", f.RodataAddr, err)
	}
}

func checkMainModule(t *testing.T, c *Core, prog string) {
	t.Helper()
	if len(c.Modules) == 0 || !c.Modules[0].Main {
		t.Fatalf("first module is not the main executable: %+v", c.Modules)
	}
	m := c.Modules[0]
	if m.Path != prog || c.Executable != prog {
		t.Errorf("main module %q, Executable %q, want %q", m.Path, c.Executable, prog)
	}
	if want := readelfBuildID(t, prog); m.BuildID != want || m.FileBuildID != want {
		t.Errorf("main build ID core %q file %q, readelf says %q", m.BuildID, m.FileBuildID, want)
	}
	if !m.Found || m.File != prog {
		t.Errorf("main module file %q found %v", m.File, m.Found)
	}
	// Base is where the first PT_LOAD (file offset 0) went: for a non-PIE
	// executable its link address.
	if loads := readelfLoads(t, prog); loads[0].Vaddr != 0 && m.Base != loads[0].Vaddr {
		t.Errorf("main module base %#x, readelf says first PT_LOAD at %#x", m.Base, loads[0].Vaddr)
	}
}

func TestKernelCoreSegvThreads(t *testing.T) {
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	core, facts := crash(t, prog, "segv", "3")
	c, err := Open(core, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Format != "elf-linux" || c.Arch != "x86_64" || c.OS != "linux" || c.PtrSize() != 8 || c.ByteOrder() != binary.LittleEndian || c.Machine != elf.EM_X86_64 {
		t.Errorf("format %s arch %s os %s ptr %d order %v machine %v", c.Format, c.Arch, c.OS, c.PtrSize(), c.ByteOrder(), c.Machine)
	}
	checkAgainstTools(t, c, core)
	if c.PID != facts.PID {
		t.Errorf("pid %d, program printed %d", c.PID, facts.PID)
	}
	var tids []int
	for _, th := range c.Threads {
		tids = append(tids, th.TID)
		if len(th.GRegs) != 27*8 || len(th.FPRegs) != 512 || len(th.XState) == 0 {
			t.Errorf("thread %d: gregs %d fpregs %d xstate %d bytes", th.TID, len(th.GRegs), len(th.FPRegs), len(th.XState))
		}
	}
	if !sameSet(tids, facts.TIDs) {
		t.Errorf("threads %v, program printed %v", tids, facts.TIDs)
	}
	if c.Threads[0].TID != facts.MainTID || c.CrashedTID != facts.MainTID {
		t.Errorf("first thread %d crashed %d, faulting thread is %d", c.Threads[0].TID, c.CrashedTID, facts.MainTID)
	}
	s := c.Signal
	if s.Name() != "SIGSEGV" || s.CodeName() != "SEGV_MAPERR" || !s.HasAddr || s.Addr != 0x10 {
		t.Errorf("signal %v, want SIGSEGV SEGV_MAPERR at 0x10", s)
	}
	// rip in pr_reg (x86_64 user_regs_struct slot 16) must be in the main
	// executable's code.
	rip := binary.LittleEndian.Uint64(c.Threads[0].GRegs[16*8:])
	if !c.IsCode(rip) || rip < c.Modules[0].Start || rip >= c.Modules[0].End {
		t.Errorf("rip %#x not in the executable's code", rip)
	}
	checkMemory(t, c, facts)
	checkMainModule(t, c, prog)
	libc := moduleNamed(c, "libc.so.6")
	if libc == nil || !libc.Found {
		t.Fatalf("libc module missing or not found: %+v", libc)
	}
	if want := readelfBuildID(t, libc.File); libc.BuildID != want {
		t.Errorf("libc build ID %q in core, readelf says %q", libc.BuildID, want)
	}
	if vdso := moduleNamed(c, "[vdso]"); vdso == nil || vdso.Base != c.VDSO || !vdso.InCore || len(vdso.BuildID) == 0 {
		t.Errorf("vdso module %+v, AT_SYSINFO_EHDR %#x", vdso, c.VDSO)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings: %q", c.Warnings)
	}
	// A read that spans two segments: the last 8 bytes of one and the first
	// 8 of the next, where they are adjacent and both dumped.
	for i := 1; i < len(c.Segments); i++ {
		a, b := c.Segments[i-1], c.Segments[i]
		if a.Vaddr+a.Memsz == b.Vaddr && a.Filesz == a.Memsz && b.Filesz >= 8 {
			got := make([]byte, 16)
			if err := c.ReadMem(b.Vaddr-8, got); err != nil {
				t.Fatalf("spanning read at %#x: %v", b.Vaddr-8, err)
			}
			raw, _ := os.ReadFile(core)
			want := append(bytes.Clone(raw[a.Offset+a.Memsz-8:a.Offset+a.Memsz]), raw[b.Offset:b.Offset+8]...)
			if !bytes.Equal(got, want) {
				t.Errorf("spanning read %x, file bytes %x", got, want)
			}
			break
		}
	}
	// Unmapped memory.
	if err := c.ReadMem(0x10, make([]byte, 4)); !errors.Is(err, unwind.ErrUnavailable) {
		t.Errorf("read of the fault address: %v, want ErrUnavailable", err)
	}
}

func TestKernelCoreAbort(t *testing.T) {
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	core, facts := crash(t, prog, "abort", "1")
	c, err := Open(core, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	checkAgainstTools(t, c, core)
	s := c.Signal
	if s.Name() != "SIGABRT" || s.CodeName() != "SI_TKILL" || s.HasAddr || !s.HasSender || s.SenderPID != facts.PID {
		t.Errorf("signal %v (sender %d), want SIGABRT SI_TKILL from %d", s, s.SenderPID, facts.PID)
	}
	if c.CrashedTID != facts.MainTID || len(c.Threads) != 2 {
		t.Errorf("crashed %d of %d threads, want %d of 2", c.CrashedTID, len(c.Threads), facts.MainTID)
	}
	checkMemory(t, c, facts)
}

func TestKernelCoreKill(t *testing.T) {
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	core, facts := crash(t, prog, "kill", "2")
	c, err := Open(core, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	checkAgainstTools(t, c, core)
	s := c.Signal
	if s.Name() != "SIGQUIT" || s.CodeName() != "SI_USER" || !s.HasSender || s.SenderPID != facts.PID {
		t.Errorf("signal %v, want SIGQUIT SI_USER from %d", s, facts.PID)
	}
	if c.CrashedTID != c.Threads[0].TID {
		t.Errorf("crashed %d, want the dumping (first) thread %d", c.CrashedTID, c.Threads[0].TID)
	}
}

func TestKernelCoreNonPIEAndStatic(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		mods  int // modules expected: -1 = at least 4
	}{
		{"nopie", []string{"-no-pie", "-fno-pie"}, -1},
		{"static", []string{"-static"}, 2},
		{"static-pie", []string{"-static-pie"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			prog := buildC(t, dir, "crash-"+tc.name, tc.flags...)
			core, facts := crash(t, prog, "segv", "1")
			c, err := Open(core, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			checkAgainstTools(t, c, core)
			checkMainModule(t, c, prog)
			checkMemory(t, c, facts)
			if (tc.mods >= 0 && len(c.Modules) != tc.mods) || (tc.mods < 0 && len(c.Modules) < 4) {
				t.Errorf("%d modules: %v", len(c.Modules), moduleNames(c))
			}
		})
	}
}

// TestMissingAndWrongFiles: files that cannot be found or do not match
// the core leave warnings and unavailable memory, never wrong bytes.
func TestMissingAndWrongFiles(t *testing.T) {
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	core, facts := crash(t, prog, "segv", "0")
	other := buildC(t, t.TempDir(), "crash", "-DEXTRA_UNUSED=1", "-O0")
	empty := t.TempDir()

	// hideProg moves the program away for a subtest: the one module
	// found neither under the sysroot nor at its recorded path (the
	// system's libraries are found there, their build IDs matching).
	hideProg := func(t *testing.T) {
		if err := os.Rename(prog, prog+".away"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Rename(prog+".away", prog) })
	}
	t.Run("missing", func(t *testing.T) {
		hideProg(t)
		c, err := Open(core, Options{Sysroot: empty})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for _, m := range c.Modules {
			switch {
			case m.InCore:
			case m.Path == prog:
				if m.Found || !hasWarning(c, m.Path, "not found", filepath.Join(empty, m.Path)) {
					t.Errorf("module %s: found %v; warnings %q", m.Path, m.Found, c.Warnings)
				}
			case !m.Found || m.File != m.Path || !hasWarning(c, m.Path, "not found under sysroot "+empty):
				t.Errorf("module %s: file %q found %v; warnings %q", m.Path, m.File, m.Found, c.Warnings)
			}
		}
		if got := readU64(t, c, facts.GlobalAddr); got != facts.Global {
			t.Errorf("global %#x, want %#x", got, facts.Global)
		}
		err = c.ReadMem(facts.RodataAddr, make([]byte, 8))
		if !errors.Is(err, unwind.ErrUnavailable) || !strings.Contains(err.Error(), "not found") {
			t.Errorf("rodata read without files: %v", err)
		}
	})
	t.Run("wrong-executable", func(t *testing.T) {
		hideProg(t)
		c, err := Open(core, Options{Executable: other, Sysroot: empty})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		coreID, otherID := readelfBuildID(t, prog+".away"), readelfBuildID(t, other)
		if coreID == otherID {
			t.Fatal("test binaries have the same build ID")
		}
		if !hasWarning(c, prog, coreID, otherID, other) {
			t.Errorf("no warning naming both build IDs and %s: %q", other, c.Warnings)
		}
		if c.Modules[0].Found {
			t.Errorf("mismatched executable accepted: %+v", c.Modules[0])
		}
		if err := c.ReadMem(facts.RodataAddr, make([]byte, 8)); !errors.Is(err, unwind.ErrUnavailable) {
			t.Errorf("rodata read with the wrong executable: %v", err)
		}
	})
	t.Run("explicit-executable", func(t *testing.T) {
		moved := filepath.Join(t.TempDir(), "renamed")
		copyFile(t, prog, moved)
		c, err := Open(core, Options{Executable: moved, Sysroot: empty})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if m := c.Modules[0]; m.File != moved || !m.Found {
			t.Errorf("main module file %q found %v", m.File, m.Found)
		}
		checkMemory(t, c, facts)
	})
}

// TestSysrootAndSearchPath moves the binary and libraries away from the
// recorded paths.
func TestSysrootAndSearchPath(t *testing.T) {
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	core, facts := crash(t, prog, "segv", "0")
	probe, err := Open(core, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, m := range probe.Modules {
		if !m.InCore {
			paths = append(paths, m.Path)
		}
	}
	probe.Close()

	sysroot := t.TempDir()
	for _, p := range paths {
		copyFile(t, p, filepath.Join(sysroot, p))
	}
	search := t.TempDir()
	copyFile(t, prog, filepath.Join(search, "crash"))
	if err := os.Rename(prog, prog+".moved"); err != nil {
		t.Fatal(err)
	}

	c, err := Open(core, Options{Sysroot: sysroot})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range c.Modules {
		if !m.InCore && (!m.Found || m.File != filepath.Join(sysroot, m.Path)) {
			t.Errorf("sysroot: module %s file %q found %v", m.Path, m.File, m.Found)
		}
	}
	if len(c.Warnings) != 0 {
		t.Errorf("sysroot warnings: %q", c.Warnings)
	}
	checkMemory(t, c, facts)
	c.Close()

	c, err = Open(core, Options{SearchPath: []string{t.TempDir(), search}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if m := c.Modules[0]; m.File != filepath.Join(search, "crash") || !m.Found {
		t.Errorf("search path: main module file %q found %v; warnings %q", m.File, m.Found, c.Warnings)
	}
	checkMemory(t, c, facts)
}

func TestNotACore(t *testing.T) {
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "no ELF header"},
		{"text", []byte("hello, world\n"), "no ELF header"},
		{"executable", must(os.ReadFile(prog)), "not ET_CORE"},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(path, Options{})
		if !errors.Is(err, ErrNotCore) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want ErrNotCore mentioning %q and the path", tc.name, err, tc.want)
		}
	}
	if _, err := Open(filepath.Join(dir, "absent"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent file: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func sameSet(a, b []int) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func moduleNamed(c *Core, base string) *Module {
	for _, m := range c.Modules {
		if filepath.Base(m.Path) == base {
			return m
		}
	}
	return nil
}

func moduleNames(c *Core) []string {
	var out []string
	for _, m := range c.Modules {
		out = append(out, m.Path)
	}
	return out
}

func hasWarning(c *Core, parts ...string) bool {
	for _, w := range c.Warnings {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(w, p)
		}
		if ok {
			return true
		}
	}
	return false
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// After ReleasePages a core reads the same memory: the written global
// from the core, the read-only string from the executable's file.
func TestReleasePagesKeepsMemory(t *testing.T) {
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	core, facts := crash(t, prog, "segv", "1")
	c, err := Open(core, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	checkMemory(t, c, facts)
	c.ReleasePages()
	checkMemory(t, c, facts)
}

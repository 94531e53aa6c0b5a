package corefile

import (
	"debug/elf"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// qemuLinkMapProg crashes in crashLeaf on a worker thread while another
// thread sleeps, with 256 KiB thread stacks (qemu cores are not sparse)
// and a call into libm so that the dynamic builds load it.
const qemuLinkMapProg = `#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

volatile double angle = 0.5;

__attribute__((noinline)) void crashLeaf(volatile int *p) { *p = (int)cos(angle); }

static void *sleeper(void *arg) { (void)arg; for (;;) pause(); return NULL; }

static void *worker(void *arg) { (void)arg; usleep(100000); crashLeaf((volatile int *)0); return NULL; }

int main(void) {
	pthread_attr_t attr;
	pthread_t a, b;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10);
	pthread_create(&a, &attr, sleeper, NULL);
	pthread_create(&b, &attr, worker, NULL);
	pthread_join(b, NULL);
	return 0;
}
`

// pcOffset is where pr_reg holds the PC: aarch64 after x0-x30 and sp,
// arm in r15, ppc64 (nip) after the 32 GPRs, s390x in the PSW's second
// word.
var qemuPCOffset = map[string]int{"aarch64": 32 * 8, "arm": 15 * 4, "ppc64le": 32 * 8, "s390x": 8}

// TestQemuCoresWithoutNTFile: qemu-user cores (no NT_FILE, no first
// segment of any ELF mapping) of dynamic PIE, dynamic non-PIE and static
// programs get the executable from the auxiliary vector and the libraries
// from the link map, resolved under --sysroot, as gdb-multiarch lists
// them; frame 0's PC names crashLeaf through the executable at its bias.
func TestQemuCoresWithoutNTFile(t *testing.T) {
	for _, arch := range []testenv.CrossArch{testenv.AArch64, testenv.ARMHF, testenv.PPC64LE, testenv.S390X} {
		t.Run(arch.Name, func(t *testing.T) {
			t.Parallel()
			testenv.NeedTool(t, arch.CC())
			testenv.NeedTool(t, arch.Qemu)
			dir := t.TempDir()
			variants := []struct {
				name       string
				flags      []string
				prog, core string
			}{
				{name: "pie", flags: []string{"-pie", "-fPIE"}},
				{name: "nopie", flags: []string{"-no-pie", "-fno-PIE"}},
				{name: "static", flags: []string{"-static"}},
			}
			for i := range variants {
				v := &variants[i]
				flags := append([]string{"-g", "-O1", "-Wl,--build-id", "-Wl,--no-as-needed"}, v.flags...)
				v.prog = testenv.BuildCross(t, arch, dir, v.name, qemuLinkMapProg, append(flags, "-lm")...)
				v.core, _ = testenv.CrashUnderQemu(t, arch, v.prog)
			}
			for i, v := range variants {
				t.Run(v.name, func(t *testing.T) {
					// The next variant is the wrong executable for this core.
					other := variants[(i+1)%len(variants)].prog
					checkQemuCore(t, arch, v.prog, v.core, other, v.name == "static")
				})
			}
		})
	}
}

func checkQemuCore(t *testing.T, arch testenv.CrossArch, prog, core, other string, static bool) {
	c := must(Open(core, Options{Executable: prog, Sysroot: arch.Sysroot()}))
	defer c.Close()
	if c.Arch != arch.Name {
		t.Fatalf("arch %s, want %s", c.Arch, arch.Name)
	}
	ef, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	entry, _ := c.AuxVal(AT_ENTRY)
	bias := entry - ef.Entry
	if ef.Type == elf.ET_EXEC && bias != 0 {
		t.Errorf("non-PIE executable with bias %#x", bias)
	}
	main := c.Modules[0]
	if !main.Main || main.File != prog || !main.Found || main.FileBuildID != readelfBuildID(t, prog) {
		t.Fatalf("main module %+v; warnings %q", *main, c.Warnings)
	}
	var first *elf.Prog
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD {
			first = p
			break
		}
	}
	if want := bias + first.Vaddr - first.Off; main.Base != want || main.Start != want || main.End <= entry {
		t.Errorf("main module at %#x-%#x base %#x; bias %#x puts its header at %#x and AT_ENTRY is %#x", main.Start, main.End, main.Base, bias, want, entry)
	}
	// The executable's text is not in a qemu core: reading it proves the
	// overlay works at the bias found.
	text := ef.Section(".text")
	want, got := make([]byte, 64), make([]byte, 64)
	if _, err := text.ReadAt(want, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.readCore(bias+text.Addr, got); err == nil {
		t.Errorf(".text at %#x is in the core: the overlay test proves nothing", bias+text.Addr)
	}
	if err := c.ReadMem(bias+text.Addr, got); err != nil || string(got) != string(want) {
		t.Errorf(".text at %#x: %v; read %x, file has %x", bias+text.Addr, err, got, want)
	}

	t.Logf("%s: main at %#x-%#x (bias %#x); warnings %q", prog, main.Start, main.End, bias, c.Warnings)
	// Another program given as the executable is refused: its entry point
	// is not AT_ENTRY, or at the bias that gives, its program headers are
	// not where AT_PHDR says.
	if o := must(Open(core, Options{Executable: other, Sysroot: arch.Sysroot()})); o.Modules[0].Found || !hasWarning(o, other, "AT_", "not used") {
		t.Errorf("%s accepted as the executable of %s: %+v; warnings %q", other, prog, *o.Modules[0], o.Warnings)
		o.Close()
	} else {
		o.Close()
	}

	// Frame 0: the crashed thread's PC is in crashLeaf.
	th := c.Thread(c.CrashedTID)
	off := qemuPCOffset[arch.Name]
	pc := wordOf(th.GRegs[off:], c.order, c.ptrSize)
	if name := symbolAt(t, ef, pc-bias); name != "crashLeaf" {
		t.Errorf("frame 0 pc %#x (file address %#x) is in %q, want crashLeaf", pc, pc-bias, name)
	}

	init := []string{"set sysroot " + arch.Sysroot()}
	var cmds []string
	if ef.Type == elf.ET_DYN {
		// gdb reads zeros where the PIE's headers should be and cannot
		// relocate it by itself.
		cmds = []string{fmt.Sprintf("symbol-file -o %#x %s", bias, prog), "sharedlibrary"}
	}
	checkGDBSharedLibraries(t, "gdb-multiarch", init, cmds, prog, core, c)
	if static {
		if len(c.Modules) != 1 {
			t.Errorf("static program with modules %v", moduleNames(c))
		}
		return
	}
	for _, lib := range []string{"libc.so.6", "libm.so.6"} {
		m := moduleNamed(c, lib)
		if m == nil {
			t.Errorf("%s missing: %v (warnings %q)", lib, moduleNames(c), c.Warnings)
			continue
		}
		if !strings.HasPrefix(m.File, arch.Sysroot()+"/") || m.FileBuildID != readelfBuildID(t, m.File) || m.Base == 0 {
			t.Errorf("%s: %+v", lib, *m)
		}
	}
	// A wrong file is refused although the core lacks the build IDs: a
	// copy of libc named libm.so.6 has its dynamic section elsewhere than
	// libm's l_ld says.
	wrong := t.TempDir()
	copyFile(t, moduleNamed(c, "libc.so.6").File, filepath.Join(wrong, "libm.so.6"))
	w := must(Open(core, Options{Executable: prog, Sysroot: t.TempDir(), SearchPath: []string{wrong}}))
	defer w.Close()
	if m := moduleNamed(w, "libm.so.6"); m == nil || m.Found || !hasWarning(w, "libm.so.6", "dynamic section would be at", "not used") {
		t.Errorf("libc posing as libm: %+v; warnings %q", m, w.Warnings)
	}

	// --search-path finds them by name just as well (an empty sysroot
	// keeps the recorded paths out), at the same places.
	s := must(Open(core, Options{Executable: prog, Sysroot: t.TempDir(), SearchPath: []string{arch.Sysroot() + "/lib"}}))
	defer s.Close()
	for _, lib := range []string{"libc.so.6", "libm.so.6"} {
		m, want := moduleNamed(s, lib), moduleNamed(c, lib)
		if m == nil || want == nil || m.File != filepath.Join(arch.Sysroot(), "lib", lib) || m.Start != want.Start || m.End != want.End {
			t.Errorf("%s by search path: %+v, by sysroot %+v", lib, m, want)
		}
	}
}

// symbolAt names the function of ef that holds addr (link-time address).
func symbolAt(t *testing.T, ef *elf.File, addr uint64) string {
	syms, err := ef.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && addr >= s.Value&^1 && addr < s.Value&^1+s.Size {
			return s.Name
		}
	}
	return "no function"
}

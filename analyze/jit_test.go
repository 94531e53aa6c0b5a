package analyze

import (
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/coreunwind/coreunwind/internal/refbt"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/report"
)

// gdbJITObject is the generated code of the GDB JIT test: linked at a
// fixed address so that the image registered with GDB needs no
// relocation (what a JIT does before registering an object), built
// without frame pointers so that only its .eh_frame unwinds it.
const gdbJITObject = `
__attribute__((noinline)) int jit_leaf(volatile int *p, int x) { *p = x; return x + 1; }
int jit_entry(volatile int *p, int x) { return jit_leaf(p, x * 3) * 2 + 1; }
`

// gdbJITHost loads the object's PT_LOAD segments at their addresses,
// registers the object's bytes in __jit_debug_descriptor and calls its
// entry point, which crashes.
const gdbJITHost = `
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct jit_code_entry { struct jit_code_entry *next, *prev; const char *symfile_addr; uint64_t symfile_size; };
struct jit_descriptor { uint32_t version; uint32_t action_flag; struct jit_code_entry *relevant_entry, *first_entry; };
struct jit_descriptor __jit_debug_descriptor = { 1, 0, 0, 0 };
__attribute__((noinline)) void __jit_debug_register_code(void) { __asm__ volatile(""); }

__attribute__((noinline)) int run(void *entry) {
	int r = ((int (*)(volatile int *, int))entry)(NULL, 7);
	return r + 1;
}

int main(int argc, char **argv) {
	FILE *f = fopen(argv[1], "rb");
	if (!f) return 2;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *img = malloc(n);
	if (fread(img, 1, n, f) != (size_t)n) return 3;
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD) continue;
		uintptr_t lo = ph[i].p_vaddr & ~0xfffUL, hi = (ph[i].p_vaddr + ph[i].p_memsz + 0xfff) & ~0xfffUL;
		void *m = mmap((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (m != (void *)lo) return 4;
		memcpy((void *)ph[i].p_vaddr, img + ph[i].p_offset, ph[i].p_filesz);
	}
	static struct jit_code_entry e;
	e.symfile_addr = img;
	e.symfile_size = n;
	__jit_debug_descriptor.first_entry = __jit_debug_descriptor.relevant_entry = &e;
	__jit_debug_descriptor.action_flag = 1; /* JIT_REGISTER_FN */
	__jit_debug_register_code();
	return run((void *)eh->e_entry);
}
`

// TestGDBJITInterface: a crash inside code registered with the GDB JIT
// interface; coreunwind names the JIT frames from the in-memory object's
// symbols, unwinds them by its .eh_frame, and agrees with gdb's backtrace
// of the same core.
func TestGDBJITInterface(t *testing.T) {
	gdb := testenv.NeedTool(t, "gdb")
	dir := t.TempDir()
	objSrc := filepath.Join(dir, "jitobj.c")
	if err := os.WriteFile(objSrc, []byte(gdbJITObject), 0o644); err != nil {
		t.Fatal(err)
	}
	obj := filepath.Join(dir, "jitobj.elf")
	testenv.Build(t, "gcc", "-O2", "-g", "-fomit-frame-pointer", "-fasynchronous-unwind-tables", "-nostdlib", "-static", "-no-pie",
		"-Wl,-e,jit_entry", "-Wl,-Ttext-segment=0x60000000", "-Wl,--build-id", "-o", obj, objSrc)
	prog := testenv.BuildC(t, dir, "jithost", gdbJITHost, "-O1", "-g")
	core, _ := testenv.Crash(t, prog, obj)

	r, frames := crashedFrames(t, core, Options{Executable: prog})
	dumpFrames(t, frames)
	for _, w := range r.Warnings {
		t.Logf("warning: %s", w)
	}
	if len(frames) < 4 || fname(frames[0]) != "jit_leaf" || fname(frames[1]) != "jit_entry" || fname(frames[2]) != "run" {
		t.Fatalf("frames do not start jit_leaf, jit_entry, run")
	}
	if frames[2].Trust != "cfi" {
		t.Errorf("run was found with trust %s, want cfi (the JIT object's .eh_frame)", frames[2].Trust)
	}
	if frames[0].File == nil || filepath.Base(*frames[0].File) != "jitobj.c" {
		t.Errorf("jit_leaf has no source file from the JIT object's DWARF")
	}

	agreeWithGDB(t, gdb, prog, core, frames)
}

// agreeWithGDB checks every frame of gdb's backtrace of core against
// coreunwind's frames: the same function, the same pc where gdb prints
// one, and the same line (and file name) where gdb has one.
func agreeWithGDB(t *testing.T, gdb, prog, core string, frames []report.Frame) {
	t.Helper()
	out, err := exec.Command(gdb, "-batch", "-nx", "-ex", "bt", prog, core).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	gdbFrames := refbt.ParseGDBFrames(string(out))
	if len(gdbFrames) < 4 {
		t.Fatalf("gdb's backtrace:\n%s", out)
	}
	t.Logf("gdb:\n%s", out)
	for _, g := range gdbFrames {
		i := g.Index
		if i >= len(frames) {
			t.Errorf("gdb has frame #%d %s, coreunwind stops at %d", i, g.Func, len(frames))
			continue
		}
		f := frames[i]
		if want := cmp.Or(g.Func, "??"); fname(f) != want {
			t.Errorf("frame %d: %s, gdb %s", i, fname(f), want)
		}
		if g.HasPC && uint64(f.PC) != g.PC {
			t.Errorf("frame %d: pc %#x, gdb %#x", i, uint64(f.PC), g.PC)
		}
		if g.File != "" {
			if f.File == nil || f.Line == nil || filepath.Base(*f.File) != filepath.Base(g.File) || *f.Line != g.Line {
				t.Errorf("frame %d %s: line %s, gdb %s:%d", i, g.Func, frameLine(f), g.File, g.Line)
			}
		}
	}
}

// frameLine is a frame's file:line for messages.
func frameLine(f report.Frame) string {
	if f.File == nil || f.Line == nil {
		return "none"
	}
	return *f.File + ":" + strconv.Itoa(*f.Line)
}

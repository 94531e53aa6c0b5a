package analyze

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// llvmConfig is LLVM 14's llvm-config (Debian's llvm-14-dev).
const llvmConfig = "/usr/lib/llvm-14/bin/llvm-config"

// buildLLVMJIT builds testdata/llvmjit/host.c against the shared
// libLLVM-14 (linking the static libraries would take far longer) and
// returns the program and the IR file it compiles at run time.
func buildLLVMJIT(t *testing.T) (prog, ir string) {
	t.Helper()
	if _, err := os.Stat(llvmConfig); err != nil {
		testenv.Unavailable(t, "llvm-14-dev is not installed (apt-get install -y llvm-14-dev)")
	}
	cfg := func(arg ...string) []string {
		out, err := exec.Command(llvmConfig, arg...).Output()
		if err != nil {
			t.Fatalf("llvm-config %s: %v", strings.Join(arg, " "), err)
		}
		return strings.Fields(string(out))
	}
	src, err := filepath.Abs("testdata/llvmjit")
	if err != nil {
		t.Fatal(err)
	}
	libdir := cfg("--libdir")[0]
	prog = filepath.Join(t.TempDir(), "llvmjit")
	args := []string{"-O1", "-g", "-o", prog, filepath.Join(src, "host.c"), "-I" + cfg("--includedir")[0],
		"-L" + libdir, "-Wl,-rpath," + libdir}
	testenv.Build(t, "gcc", append(args, cfg("--libs", "--link-shared")...)...)
	return prog, filepath.Join(src, "jitcode.ll")
}

// TestLLVMJIT: crashes inside code that LLVM 14 compiled at run time,
// by MCJIT and by ORC's LLJIT. Both register with the GDB JIT interface
// a relocatable object whose section headers carry the load addresses;
// coreunwind must name the JIT frames, give their lines, and unwind them
// by the object's .eh_frame (relocated in memory by the JIT), agreeing
// with gdb's backtrace of the same core frame by frame.
func TestLLVMJIT(t *testing.T) {
	gdb := testenv.NeedTool(t, "gdb")
	prog, ir := buildLLVMJIT(t)
	for _, jit := range []string{"mcjit", "orc"} {
		t.Run(jit, func(t *testing.T) {
			core, out := testenv.Crash(t, prog, jit, ir)
			if len(out) > 0 {
				t.Logf("%s printed:\n%s", prog, out)
			}
			opts := Options{Executable: prog}

			// The registration really is relocatable: what gdb and
			// coreunwind read here is the ET_REL form, whose .eh_frame
			// needs relocating.
			s, err := Open(core, opts)
			if err != nil {
				t.Fatal(err)
			}
			mods := s.target.jit().modules
			if len(mods) != 1 || mods[0].obj().Type() != elf.ET_REL || mods[0].obj().ELF().Section(".rela.eh_frame") == nil {
				t.Errorf("want one ET_REL object with .rela.eh_frame registered, got %d objects", len(mods))
				for _, m := range mods {
					t.Logf("%s: %v", m.core.Path, m.obj().Type())
				}
			}
			for _, w := range s.target.jitWarnings() {
				t.Errorf("JIT warning: %s", w)
			}
			s.Close()

			_, frames := crashedFrames(t, core, opts)
			dumpFrames(t, frames)
			want := []struct {
				name string
				line int // in jitcode.ll's debug info
			}{{"jit_leaf", 2}, {"jit_mid", 7}, {"jit_entry", 11}, {"run", 0}, {"main", 0}}
			if len(frames) < len(want) {
				t.Fatalf("%d frames, want at least %d", len(frames), len(want))
			}
			for i, w := range want {
				f := frames[i]
				if fname(f) != w.name {
					t.Errorf("frame %d: %s, want %s", i, fname(f), w.name)
				}
				// Frames 1-3 were found by the CFI of the JIT frames
				// below them; nothing else describes that code.
				if i > 0 && i <= 3 && f.Trust != "cfi" {
					t.Errorf("frame %d %s: trust %s, want cfi (the JIT object's .eh_frame)", i, w.name, f.Trust)
				}
				if w.line != 0 && (f.File == nil || filepath.Base(*f.File) != "jitcode.c" || f.Line == nil || *f.Line != w.line) {
					t.Errorf("frame %d %s: line %s, want jitcode.c:%d", i, w.name, frameLine(f), w.line)
				}
			}
			agreeWithGDB(t, gdb, prog, core, frames)
		})
	}
}

package elfx

import (
	"debug/elf"
	"os/exec"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// userCode keeps the functions the test programs define, leaving out the
// C runtime's startup code (whose lack of DWARF is tested elsewhere).
func userCode(fn string) bool {
	switch {
	case strings.HasPrefix(fn, "_"), strings.HasPrefix(fn, "deregister_tm"),
		strings.HasPrefix(fn, "register_tm"), strings.HasPrefix(fn, "frame_dummy"),
		strings.Contains(fn, "@plt"), strings.HasPrefix(fn, "."):
		return false
	}
	return true
}

func TestSourceFramesCMatchesAddr2line(t *testing.T) {
	cases := []struct {
		name  string
		flags []string
		post  []string // objcopy arguments applied after linking
	}{
		{"O0-dwarf4", []string{"-O0", "-g", "-gdwarf-4"}, nil},
		{"O0-dwarf5", []string{"-O0", "-g", "-gdwarf-5"}, nil},
		{"O2-dwarf4", []string{"-O2", "-g", "-gdwarf-4"}, nil},
		{"O2-dwarf5", []string{"-O2", "-g", "-gdwarf-5"}, nil},
		{"O2-gz-zlib", []string{"-O2", "-g", "-gz=zlib"}, nil},
		// zstd-compressed sections come from objcopy: gcc 12 (Debian 12)
		// has no -gz=zstd, and a case that would only run on another
		// compiler is a case that never runs.
		{"O2-objcopy-zstd", []string{"-O2", "-g"}, []string{"--compress-debug-sections=zstd"}},
		// Old-style .zdebug_* sections.
		{"O2-gz-zlib-gnu", []string{"-O2", "-g", "-gz=zlib-gnu"}, nil},
		{"O2-split-dwarf", []string{"-O2", "-g", "-gsplit-dwarf"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.name == "O2-gz-zlib-gnu" && !gccAccepts(t, dir, "-gz=zlib-gnu") {
				testenv.Unavailable(t, "gcc/ld here do not support -gz=zlib-gnu")
			}
			bin := compile(t, dir, "gcc", "prog", "c", cProgram, tc.flags...)
			if tc.post != nil {
				run(t, dir, testenv.NeedTool(t, "objcopy"), append(tc.post, bin)...)
			}
			o := mustOpen(t, bin)
			ref := bin
			if strings.Contains(tc.name, "-gz-") || strings.Contains(tc.name, "zstd") {
				// The reference tools stumble on .zdebug sections (binutils
				// 2.40 drops lines, elfutils loops through inline levels):
				// they read an uncompressed copy of the same DWARF, while
				// elfx reads the compressed file.
				if !hasCompressedDWARF(o) {
					t.Fatalf("%s: no compressed debug sections", tc.name)
				}
				ref = bin + ".plain"
				run(t, dir, testenv.NeedTool(t, "objcopy"), "--decompress-debug-sections", bin, ref)
			}
			addrs := instructionAddrs(t, bin, userCode)
			if len(addrs) < 20 {
				t.Fatalf("only %d instructions in user code", len(addrs))
			}
			tool := "addr2line"
			if tc.name == "O2-split-dwarf" {
				// binutils' addr2line gives up on skeleton units;
				// elfutils falls back to the line table and symbols, as
				// elfx does.
				tool = "eu-addr2line"
			}
			inl := compareWithTool(t, tool, o, ref, addrs)
			if strings.HasPrefix(tc.name, "O2") && tc.name != "O2-split-dwarf" && inl == 0 {
				t.Errorf("no inline chains found at -O2; the test program no longer exercises inlining")
			}
			t.Logf("%d addresses, %d with inline chains", len(addrs), inl)
		})
	}
}

// gccAccepts reports whether gcc (and the linker) accept a flag.
func gccAccepts(t *testing.T, dir, flag string) bool {
	cmd := exec.Command("gcc", flag, "-g", "-x", "c", "-o", dir+"/probe", "-")
	cmd.Stdin = strings.NewReader("int main(void){return 0;}\n")
	return cmd.Run() == nil
}

func TestSourceFramesCXXMatchesAddr2line(t *testing.T) {
	dir := t.TempDir()
	bin := compile(t, dir, "g++", "prog", "cc", cxxProgram, "-O2", "-g")
	o := mustOpen(t, bin)
	// All of main and the program's own functions, plus the library
	// templates instantiated in it (std::vector, std::map, ...).
	addrs := instructionAddrs(t, bin, userCode)
	inl := compareWithAddr2line(t, o, bin, addrs)
	if inl < 10 {
		t.Errorf("only %d addresses with inline chains; expected many at -O2", inl)
	}
	t.Logf("%d addresses, %d with inline chains", len(addrs), inl)
}

func TestSourceFramesNoDWARF(t *testing.T) {
	dir := t.TempDir()
	bin := compile(t, dir, "gcc", "prog", "c", cProgram, "-O2")
	o := mustOpen(t, bin)
	s, ok := o.LookupSymbol("main")
	if !ok {
		t.Fatal("main not found")
	}
	fr, err := o.SourceFrames(s.Addr)
	if err != nil || fr == nil || len(fr) != 0 {
		t.Fatalf("SourceFrames without DWARF = %v, %v; want empty slice, nil", fr, err)
	}
}

func hasCompressedDWARF(o *Object) bool {
	for _, s := range o.ELF().Sections {
		if s.Name == ".zdebug_info" || (s.Name == ".debug_info" && s.Flags&elf.SHF_COMPRESSED != 0) {
			return true
		}
	}
	return false
}

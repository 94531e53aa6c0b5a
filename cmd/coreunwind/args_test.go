package main

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// gdb's order, EXECUTABLE CORE, gives the same report as CORE
// EXECUTABLE: the two are told apart by content, a compressed core too.
func TestExecutableBeforeCore(t *testing.T) {
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "abrt", crashC, "-O0", "-g")
	core, _ := testenv.Crash(t, exe)
	code, want, stderr := runCLI(core, exe)
	if code != exitcode.OK || !strings.Contains(want, " die () at ") {
		t.Fatalf("CORE EXECUTABLE: exit %d, stderr %s, output:\n%s", code, stderr, want)
	}
	gz := filepath.Join(dir, "core.gz")
	writeGzip(t, gz, mustRead(t, core))
	for _, args := range [][]string{{exe, core}, {"--threads", "all", exe, core}} {
		code, got, stderr := runCLI(args...)
		if code != exitcode.OK || got != want {
			t.Errorf("%q: exit %d, stderr %s, output differs from CORE EXECUTABLE's:\n%s", args, code, stderr, got)
		}
	}
	code, got, stderr := runCLI(exe, gz)
	if code != exitcode.OK || !strings.Contains(got, " die () at ") {
		t.Errorf("EXECUTABLE CORE.gz: exit %d, stderr %s, output:\n%s", code, stderr, got)
	}
	// An executable alone, or two, is no core: exit 2, saying so.
	for _, args := range [][]string{{exe}, {exe, exe}} {
		code, _, stderr := runCLI(args...)
		if code != exitcode.NoCore || !strings.Contains(stderr, "executable") || !strings.HasPrefix(stderr, "coreunwind: ") {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr)
		}
	}
}

func writeGzip(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// A mistyped subcommand or flag is a usage error that names what was
// probably meant; a file of that name is a core, not a typo.
func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tirage", "dir"}, "did you mean 'coreunwind triage'?"},
		{[]string{"tabels", "lib.so"}, "did you mean 'coreunwind tables'?"},
		{[]string{"--fromat", "json", "core"}, "unknown flag --fromat; did you mean --format?"},
		{[]string{"core", "--no-flod"}, "unknown flag --no-flod; did you mean --no-fold?"},
		{[]string{"triage", "--frmaes", "2", "dir"}, "unknown flag --frmaes; did you mean --frames?"},
		{[]string{"tables", "--sectoin", ".eh_frame", "f"}, "did you mean --section?"},
		{[]string{"--colour", "core"}, "unknown flag --colour\n"},
	} {
		code, stdout, stderr := runCLI(tc.args...)
		if code != exitcode.Usage || stdout != "" || !strings.HasPrefix(stderr, "coreunwind: ") || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 1 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	t.Chdir(t.TempDir())
	if err := os.WriteFile("tirage", []byte("not a core\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI("tirage"); code != exitcode.NoCore || strings.Contains(stderr, "did you mean") {
		t.Errorf("a file named tirage: exit %d, stderr %q; want it read as a core", code, stderr)
	}
}

// Every message on stderr starts with the program's name, the flag
// package's own included; -h and --help print the usage on stdout only.
func TestMessagesAndHelp(t *testing.T) {
	for _, args := range [][]string{
		{"--max-frames", "x", "core"},
		{"triage", "-j", "many", "dir"},
		{"tables", "--format"},
		{"tables"},
	} {
		code, _, stderr := runCLI(args...)
		if code != exitcode.Usage {
			t.Errorf("%q: exit %d", args, code)
		}
		for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
			if !strings.HasPrefix(line, "coreunwind: ") && !strings.HasPrefix(line, "Run 'coreunwind --help'") {
				t.Errorf("%q: stderr line %q lacks the program's name", args, line)
			}
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-help"}, {"help"}, {"triage", "-h"}, {"tables", "--help"}, {"core", "-h"}} {
		code, stdout, stderr := runCLI(args...)
		if code != exitcode.OK || !strings.HasPrefix(stdout, "Usage:") || stderr != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout starts %.40q", args, code, stderr, stdout)
		}
	}
}

// The files a core may be, told from an executable by content: an
// HP-UX PA-RISC core (records with no magic number) and a big-endian ELF
// core (HP-UX on Itanium) count as cores, whichever order they come in.
func TestCoreAndExecutableKinds(t *testing.T) {
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "abrt", crashC, "-O0")
	corehead := filepath.Join(dir, "core.pa")
	// One CORE_FORMAT record (type 1, space, addr, len 4) and its payload.
	rec := []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 1}
	if err := os.WriteFile(corehead, rec, 0o644); err != nil {
		t.Fatal(err)
	}
	beCore := filepath.Join(dir, "core.ia64")
	ehdr := make([]byte, 64)
	copy(ehdr, "\x7fELF\x02\x02\x01") // ELFCLASS64, ELFDATA2MSB
	ehdr[16], ehdr[17] = 0, 4         // e_type ET_CORE, big-endian
	if err := os.WriteFile(beCore, ehdr, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, core := range []string{corehead, beCore} {
		for _, pos := range [][]string{{core, exe}, {exe, core}} {
			c, e, err := coreAndExecutable(pos)
			if err != nil || c != core || e != exe {
				t.Errorf("%q: core %q, executable %q, %v", pos, c, e, err)
			}
		}
	}
}

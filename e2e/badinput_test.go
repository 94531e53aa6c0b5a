package e2e

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// truncationPoints picks 50 offsets in a real core: 10 in the ELF header,
// 10 in the program headers, 15 in the notes and 15 in the memory data.
func truncationPoints(t *testing.T, core string) []struct {
	Off  int64
	Part string
} {
	t.Helper()
	f, err := elf.Open(core)
	if err != nil {
		t.Fatalf("the reference core does not open with debug/elf: %v", err)
	}
	defer f.Close()
	fi, err := os.Stat(core)
	if err != nil {
		t.Fatal(err)
	}
	var phoff, notesOff, notesEnd int64 = 64, -1, -1
	phEnd := phoff + int64(len(f.Progs))*56
	for _, p := range f.Progs {
		if p.Type == elf.PT_NOTE && notesOff < 0 {
			notesOff, notesEnd = int64(p.Off), int64(p.Off+p.Filesz)
		}
	}
	if notesOff < 0 {
		t.Fatal("the reference core has no PT_NOTE")
	}
	var pts []struct {
		Off  int64
		Part string
	}
	spread := func(lo, hi int64, n int, part string) {
		for i := 0; i < n; i++ {
			pts = append(pts, struct {
				Off  int64
				Part string
			}{lo + (hi-lo)*int64(i)/int64(n), part})
		}
	}
	spread(0, 64, 10, "header")
	spread(phoff, phEnd, 10, "phdrs")
	spread(notesOff, notesEnd, 15, "notes")
	spread(notesEnd, fi.Size(), 15, "data")
	return pts
}

// TestTruncatedCore cuts a real core at 50 points. Every run must end with
// exit code 2 (unreadable) or 3 (partial) and say why, within the time
// limit and without a Go panic (runCoreunwind checks those).
func TestTruncatedCore(t *testing.T) {
	t.Parallel()
	exe := buildProgram(t, "null-O0")
	cr := crashProgram(t, exe, nil)
	data, err := os.ReadFile(cr.Core)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, p := range truncationPoints(t, cr.Core) {
		name := fmt.Sprintf("%s-%d", p.Part, p.Off)
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, "core-"+name)
			if err := os.WriteFile(path, data[:p.Off], 0o600); err != nil {
				t.Fatal(err)
			}
			r := runCoreunwind(t, "--format", "json", path, exe)
			os.Remove(path)
			switch r.Code {
			case exitNoCore:
				if strings.TrimSpace(r.Stderr) == "" {
					t.Errorf("exit 2 with nothing on stderr")
				}
			case exitPartial:
				rep, err := decodeReport(r.Stdout)
				if err != nil {
					t.Fatalf("exit 3 but %v", err)
				}
				if len(rep.Warnings) == 0 && !anyThreadError(rep) {
					t.Errorf("exit 3 without a warning or a thread error")
				}
			default:
				t.Errorf("core truncated at %d of %d (%s): exit code %d, want 2 or 3; stderr:\n%s\nstdout starts:\n%s",
					p.Off, len(data), p.Part, r.Code, truncate(r.Stderr, 1000), truncate(r.Stdout, 1500))
			}
		})
	}
}

func anyThreadError(rep *report) bool {
	for _, th := range rep.Threads {
		if th.Error != nil && *th.Error != "" {
			return true
		}
	}
	return false
}

// TestExecutableMissing: the executable the core names is gone. The report
// must still give the frames' pcs (from the core's memory and CFI of the
// libraries) and a warning naming the missing file.
func TestExecutableMissing(t *testing.T) {
	t.Parallel()
	exe := privateCopy(t, buildProgram(t, "null-O0"))
	c := &crashCase{crash: crashProgram(t, exe, nil)}
	c.GDB, c.GDBOut = runGDB(t, c.Exe, c.Core)
	if err := os.Remove(exe); err != nil {
		t.Fatal(err)
	}
	r := runCoreunwind(t, "--format", "json", c.Core)
	if r.Code != exitOK && r.Code != exitPartial {
		t.Fatalf("exit code %d, want 0 or 3; stderr:\n%s", r.Code, r.Stderr)
	}
	rep, err := decodeReport(r.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	named := false
	for _, w := range append(rep.Warnings, r.Stderr) {
		if strings.Contains(w, exe) {
			named = true
		}
	}
	if !named {
		t.Errorf("no warning names the missing executable %s; warnings: %q", exe, rep.Warnings)
	}
	c.Report = rep
	th := c.crashed(t)
	g := c.GDB[c.pid(t)]
	if len(th.Frames) == 0 || g == nil {
		t.Fatalf("no frames (coreunwind %d, gdb thread %v)", len(th.Frames), g != nil)
	}
	if pc, _ := th.Frames[0].pc(); pc != g.Frames[0].PC {
		t.Errorf("frame 0: coreunwind %s, gdb %s", th.Frames[0], g.Frames[0].Raw)
	}
}

var buildIDWordRE = regexp.MustCompile(`(?i)build[- _]?id`)

// TestWrongExecutable: another program given as the executable must be
// noticed (its build ID differs from the one the core records).
func TestWrongExecutable(t *testing.T) {
	t.Parallel()
	exe := buildProgram(t, "null-O0")
	other := buildProgram(t, "abort")
	cr := crashProgram(t, exe, nil)
	r := runCoreunwind(t, "--format", "json", cr.Core, other)
	if r.Code != exitOK && r.Code != exitPartial {
		t.Fatalf("exit code %d, want 0 or 3; stderr:\n%s", r.Code, r.Stderr)
	}
	rep, err := decodeReport(r.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range append(rep.Warnings, r.Stderr) {
		if buildIDWordRE.MatchString(w) {
			return
		}
	}
	t.Errorf("no warning mentions the build ID mismatch; warnings: %q; stderr: %q", rep.Warnings, r.Stderr)
}

// TestNotACore: files that are not cores give exit code 2 and a message
// naming the file; usage errors give exit code 1.
func TestNotACore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(text, []byte("this is not a core file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	exe := buildProgram(t, "null-O0")
	for _, tc := range []struct{ name, path string }{
		{"text", text},
		{"empty", empty},
		{"executable", exe},
		{"missing", filepath.Join(dir, "no-such-core")},
		{"directory", dir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCoreunwind(t, tc.path)
			if r.Code != exitNoCore {
				t.Errorf("exit code %d, want 2; stderr:\n%s", r.Code, r.Stderr)
			}
			if !strings.Contains(r.Stderr, tc.path) {
				t.Errorf("stderr does not name %s:\n%s", tc.path, r.Stderr)
			}
		})
	}
	t.Run("usage", func(t *testing.T) {
		for _, args := range [][]string{{}, {"--format", "yaml", text}, {"--no-such-flag", text}, {"--max-frames", "x", text}} {
			r := runCoreunwind(t, args...)
			if r.Code != exitUsage {
				t.Errorf("coreunwind %q: exit code %d, want 1; stderr:\n%s", args, r.Code, r.Stderr)
			}
		}
	})
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/exitcode"
)

// shippedCopy copies the shipped segv-static core and executable into a
// new directory and returns the paths of the copies.
func shippedCopy(t *testing.T) (dir, core, exe string) {
	t.Helper()
	dir = t.TempDir()
	src := filepath.Join("..", "..", "testdata", "cores", "segv-static")
	core, exe = filepath.Join(dir, "core"), filepath.Join(dir, "segv")
	for _, c := range [][2]string{{"core", core}, {"segv", exe}} {
		if err := os.WriteFile(c[1], mustRead(t, filepath.Join(src, c[0])), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, core, exe
}

// dirNames lists a directory's entries, recursively, by relative path.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if rel, _ := filepath.Rel(dir, p); rel != "." {
			names = append(names, rel)
		}
		return err
	})
	return names
}

// TestOutputIsNotAnInput: -o naming an input (the core, the executable,
// another name of the core, a core inside triage's directory) is a usage
// error before anything is read or written: every input is intact and
// no file is left behind. Before, `coreunwind -o core core` replaced the
// core with its 1.4 KB report and exited 0.
func TestOutputIsNotAnInput(t *testing.T) {
	for _, c := range []struct {
		name string
		args func(dir, core, exe string) []string
	}{
		{"core", func(_, core, exe string) []string { return []string{"-o", core, core, exe} }},
		{"executable", func(_, core, exe string) []string { return []string{"-o", exe, core, exe} }},
		{"json", func(_, core, exe string) []string { return []string{"--format", "json", core, exe, "-o", core} }},
		{"hard-link", func(dir, core, exe string) []string {
			link := filepath.Join(dir, "other-name")
			if err := os.Link(core, link); err != nil {
				t.Fatal(err)
			}
			return []string{"-o", link, core, exe}
		}},
		{"pprof", func(_, core, exe string) []string { return []string{"--format", "pprof", "-o", core, core, exe} }},
		{"triage-core", func(_, core, _ string) []string { return []string{"triage", "-o", core, core} }},
		{"triage-dir", func(dir, core, _ string) []string { return []string{"triage", "-o", core, dir} }},
		{"triage-subdir", func(dir, _, _ string) []string {
			sub := filepath.Join(dir, "sub")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			nested := filepath.Join(sub, "core.1")
			if err := os.WriteFile(nested, []byte("not a core, but a file triage reads"), 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"triage", "--format", "json", "-o", nested, dir}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, core, exe := shippedCopy(t)
			args := c.args(dir, core, exe)
			before := map[string][]byte{}
			names := dirNames(t, dir)
			for _, n := range names {
				if p := filepath.Join(dir, n); !isDir(p) {
					before[n] = mustRead(t, p)
				}
			}
			code, _, stderr := runCLI(args...)
			if code != exitcode.Usage || !strings.Contains(stderr, "would be overwritten") {
				t.Errorf("coreunwind %s: exit %d, want %d (usage) saying the input would be overwritten; stderr:\n%s",
					strings.Join(args, " "), code, exitcode.Usage, stderr)
			}
			if after := dirNames(t, dir); !slices.Equal(after, names) {
				t.Errorf("files before %q, after %q", names, after)
			}
			for n, b := range before {
				if !bytes.Equal(mustRead(t, filepath.Join(dir, n)), b) {
					t.Errorf("%s was changed", n)
				}
			}
		})
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// TestOutputWrittenWhole: -o writes the report over an existing file
// beside the core (a report from before is no input), and a file that is
// not regular (/dev/null) is written in place. (outfile's tests: the
// replacing is whole.)
func TestOutputWrittenWhole(t *testing.T) {
	// A report from before, beside the core, is no input.
	cdir, core, exe := shippedCopy(t)
	previous := filepath.Join(cdir, "report.txt")
	if err := os.WriteFile(previous, []byte("old report"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI("--search-path", cdir, "-o", previous, core, exe); code != exitcode.OK {
		t.Errorf("-o %s: exit %d; stderr:\n%s", previous, code, stderr)
	}
	if b := mustRead(t, previous); !bytes.Contains(b, []byte("SIGSEGV")) {
		t.Errorf("-o %s holds %q, want the report", previous, b)
	}

	if code, _, stderr := runCLI("-o", os.DevNull, core, exe); code != exitcode.OK {
		t.Errorf("-o %s: exit %d; stderr:\n%s", os.DevNull, code, stderr)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode().IsRegular() {
		t.Errorf("%s is no longer a device: %v, %v", os.DevNull, fi, err)
	}
}

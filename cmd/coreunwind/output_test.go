package main

import (
	"bytes"
	"errors"
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

// TestOutputWrittenWhole: -o replaces an existing file only with a whole
// report: a failed write leaves the old file and no temporary file; a
// successful one keeps the file's mode, and the symbolic link -o named
// stays a link to the new report. A file that is not regular (/dev/null)
// is written in place.
func TestOutputWrittenWhole(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "report.txt")
	if err := os.WriteFile(target, []byte("old report"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("report.txt", link); err != nil {
		t.Fatal(err)
	}
	names := dirNames(t, dir)

	f, err := createOutput(link)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("half a rep")
	werr := errors.New("disk full")
	if err := f.commit(werr); err != werr {
		t.Errorf("commit after a failed write: %v, want the write's error", err)
	}
	if b := mustRead(t, target); string(b) != "old report" {
		t.Errorf("after a failed write the file holds %q", b)
	}
	if after := dirNames(t, dir); !slices.Equal(after, names) {
		t.Errorf("files before %q, after a failed write %q", names, after)
	}

	f, err = createOutput(link)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new report")
	if err := f.commit(nil); err != nil {
		t.Fatal(err)
	}
	if b := mustRead(t, target); string(b) != "new report" {
		t.Errorf("after a write the file holds %q", b)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symbolic link was replaced: %v, %v", fi, err)
	}
	if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after replacing: %v, %v; want 0600 as before", fi, err)
	}
	if after := dirNames(t, dir); !slices.Equal(after, names) {
		t.Errorf("files before %q, after a write %q", names, after)
	}

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

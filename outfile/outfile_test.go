package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dirNames lists a directory's entries by name.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestReplacedWhole: Create and Commit replace an existing file only with a whole
// report: a failed write leaves the old file and no temporary file; a
// successful one keeps the file's mode, and the symbolic link -o named
// stays a link to the new report.
func TestReplacedWhole(t *testing.T) {
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

	f, err := Create(link)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("half a rep")
	werr := errors.New("disk full")
	if err := f.Commit(werr); err != werr {
		t.Errorf("commit after a failed write: %v, want the write's error", err)
	}
	if b := mustRead(t, target); string(b) != "old report" {
		t.Errorf("after a failed write the file holds %q", b)
	}
	if after := dirNames(t, dir); !slices.Equal(after, names) {
		t.Errorf("files before %q, after a failed write %q", names, after)
	}

	f, err = Create(link)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new report")
	if err := f.Commit(nil); err != nil {
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
}

package corefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnlinkedTemp: the scratch file for a decompressed core has no name
// in its directory, and an unusable directory is an error naming it and
// TMPDIR.
func TestUnlinkedTemp(t *testing.T) {
	dir := t.TempDir()
	f, err := createUnlinkedTemp(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("data"), 1<<20); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("directory holds %v", ents)
	}
	f.Close()

	bad := filepath.Join(dir, "no", "such")
	t.Setenv("TMPDIR", bad)
	_, err = createUnlinkedTemp("")
	if err == nil {
		t.Fatal("no error for a missing TMPDIR")
	}
	if msg := TempDirError("", err).Error(); !strings.Contains(msg, "TMPDIR") || !strings.Contains(msg, bad) {
		t.Errorf("error %q does not name TMPDIR and %s", msg, bad)
	}
}

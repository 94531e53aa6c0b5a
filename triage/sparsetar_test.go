package triage_test

import (
	"archive/tar"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/triage"
)

// TestTriageGNUSparseTar: cores archived by GNU tar -S (old GNU sparse
// members, typeflag 'S', their holes in a sparse map) are read like any
// member, alone in an archive and mixed with plain members; a member
// named like a core that holds no content (a link) is a failure, not
// passed over.
func TestTriageGNUSparseTar(t *testing.T) {
	testenv.NeedTool(t, "tar")
	testenv.NeedTool(t, "cp")
	dir := t.TempDir()
	cores := crashBugs(t, dir, "null", "div")
	src := filepath.Join(dir, "src")
	os.Mkdir(src, 0o755)
	// cp --sparse=always punches a hole for every zero block: tar -S then
	// has holes to record whatever the file system did with the kernel's.
	for _, c := range cores {
		sh(t, src, "cp", "--sparse=always", c.path, filepath.Base(c.path))
	}
	in := filepath.Join(dir, "in")
	os.Mkdir(in, 0o755)
	only := filepath.Join(in, "only-sparse.tar")
	sh(t, src, "tar", "--format=gnu", "-S", "-cf", only, "core.null", "core.div")
	mixed := filepath.Join(in, "mixed.tar")
	sh(t, src, "tar", "--format=gnu", "-S", "-cf", mixed, "core.div")
	sh(t, src, "tar", "--format=gnu", "-rf", mixed, "core.null") // no -S: a plain member
	sh(t, src, "ln", "-s", "core.null", "core.symlink")
	sh(t, src, "ln", "core.null", "core.hardlink")
	links := filepath.Join(in, "links.tar")
	sh(t, src, "tar", "--format=gnu", "-cf", links, "core.symlink", "core.null", "core.hardlink")
	// The archives are what the test is about: old GNU sparse members.
	if got := memberTypes(t, only); got != "core.null:S core.div:S" {
		t.Fatalf("%s has members %q, want two old GNU sparse ones", only, got)
	}
	if got := memberTypes(t, mixed); got != "core.div:S core.null:0" {
		t.Fatalf("%s has members %q, want a sparse and a plain one", mixed, got)
	}

	sigs, failed := runTriage(t, triage.Config{}, dir, in)
	want := map[string]string{
		only + ":core.null": "parse_record", only + ":core.div": "compute_ratio",
		mixed + ":core.null": "parse_record", mixed + ":core.div": "compute_ratio",
		links + ":core.null": "parse_record",
	}
	for name, fn := range want {
		sig, ok := sigs[name]
		if !ok {
			t.Errorf("%s: not analyzed (failure: %v)", name, failed[name])
			continue
		}
		if lastFrame(sig) != fn {
			t.Errorf("%s: signature %q, want it to end in %s", name, sig.Text, fn)
		}
	}
	if len(sigs) != len(want) {
		t.Errorf("analyzed %d cores, want %d: %v", len(sigs), len(want), sigs)
	}
	for _, m := range []string{"core.symlink", "core.hardlink"} {
		err := failed[links+":"+m]
		if err == nil || !strings.Contains(err.Error(), "link") {
			t.Errorf("%s:%s: failure %v, want one saying it is a link", links, m, err)
		}
	}
	if len(failed) != 2 {
		t.Errorf("failures %v, want the two links", failed)
	}
}

// memberTypes lists an archive's members as NAME:TYPEFLAG.
func memberTypes(t *testing.T, archive string) string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return strings.Join(out, " ")
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h.Name+":"+string(h.Typeflag))
	}
}

// sh runs a command in dir and fails the test if it fails.
func sh(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, b)
	}
}

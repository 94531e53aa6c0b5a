package triage_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/triage"
)

// TestTriageUnusableTmpdir: with TMPDIR unusable, plain cores (which
// need no temporary file) are analyzed; a compressed core and an archive
// member fail, each saying TMPDIR is the trouble.
func TestTriageUnusableTmpdir(t *testing.T) {
	testenv.NeedTool(t, "zstd")
	testenv.NeedTool(t, "tar")
	dir := t.TempDir()
	cores := crashBugs(t, dir, "null", "div", "assert")
	in := filepath.Join(dir, "in")
	os.Mkdir(in, 0o755)
	os.Rename(cores[0].path, filepath.Join(in, "core.null"))
	sh(t, dir, "zstd", "-q", "--rm", cores[1].path, "-o", filepath.Join(in, "core.div.zst"))
	sh(t, dir, "tar", "-cf", filepath.Join(in, "batch.tar"), "core.assert")

	notDir := filepath.Join(dir, "a-file")
	os.WriteFile(notDir, nil, 0o644)
	t.Setenv("TMPDIR", filepath.Join(notDir, "tmp"))
	sigs, failed := runTriage(t, triage.Config{}, dir, in)

	if sig, ok := sigs[filepath.Join(in, "core.null")]; !ok || lastFrame(sig) != "parse_record" {
		t.Errorf("plain core: signature %q (analyzed %v), want it analyzed; failures %v", sig.Text, ok, failed)
	}
	for _, name := range []string{filepath.Join(in, "core.div.zst"), filepath.Join(in, "batch.tar") + ":core.assert"} {
		err := failed[name]
		if err == nil || !strings.Contains(err.Error(), "TMPDIR") || !strings.Contains(err.Error(), notDir) {
			t.Errorf("%s: failure %v, want one naming TMPDIR and its value", name, err)
		}
	}
	if len(sigs)+len(failed) != 3 {
		t.Errorf("results: %v and %v, want 3 cores", sigs, failed)
	}
}

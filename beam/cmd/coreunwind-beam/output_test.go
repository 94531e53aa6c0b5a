package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/triage"
)

// shippedCore copies the shipped segv-static core into a new directory.
func shippedCore(t *testing.T) (dir, core string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "cores", "segv-static", "core"))
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	core = filepath.Join(dir, "core")
	if err := os.WriteFile(core, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, core
}

// TestOutputIsNotAnInput: -o naming an input of the pipeline (the core,
// a file in the directory it triages) is a usage error before anything
// runs, and the input is intact. Before, the summary replaced the core.
func TestOutputIsNotAnInput(t *testing.T) {
	for _, c := range []struct {
		name string
		args func(dir, core string) []string
	}{
		{"core", func(_, core string) []string { return []string{"--format", "json", "-o", core, core} }},
		{"in-dir", func(dir, core string) []string { return []string{"-o", core, dir} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, core := shippedCore(t)
			before, _ := os.ReadFile(core)
			args := c.args(dir, core)
			var stderr bytes.Buffer
			code := run(args, io.Discard, &stderr)
			if code != exitcode.Usage || !strings.Contains(stderr.String(), "would be overwritten") {
				t.Errorf("coreunwind-beam %s: exit %d, want %d (usage) saying the input would be overwritten; stderr:\n%s",
					strings.Join(args, " "), code, exitcode.Usage, stderr.String())
			}
			if after, _ := os.ReadFile(core); !bytes.Equal(after, before) {
				t.Errorf("the core was changed")
			}
		})
	}
}

// TestOutputReplacedWhole: an existing -o file is replaced by a new file
// holding the whole summary, renamed over it (a reader of the old one,
// or a run that fails midway, never sees half a summary), with the old
// file's mode and no temporary file left beside it. Before, it was
// truncated and written in place.
func TestOutputReplacedWhole(t *testing.T) {
	_, core := shippedCore(t)
	outDir := t.TempDir()
	out := filepath.Join(outDir, "summary.json")
	if err := os.WriteFile(out, []byte("old summary"), 0o600); err != nil {
		t.Fatal(err)
	}
	inode := func() uint64 {
		fi, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600 as before", out, fi.Mode().Perm())
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	// Another name of the old file: it must keep the old summary.
	old := filepath.Join(t.TempDir(), "old.json")
	if err := os.Link(out, old); err != nil {
		t.Fatal(err)
	}
	before := inode()
	var stderr bytes.Buffer
	if code := run([]string{"--format", "json", "-o", out, core}, io.Discard, &stderr); code == exitcode.Usage || code == exitcode.Pipeline || code == exitcode.Output {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if inode() == before {
		t.Errorf("%s was written in place, not replaced", out)
	}
	var s triage.Summary
	if b, err := os.ReadFile(out); err != nil || json.Unmarshal(b, &s) != nil || s.CoresTotal != 1 {
		t.Errorf("%s holds %q (%v), want the summary of one core", out, b, err)
	}
	if b, _ := os.ReadFile(old); string(b) != "old summary" {
		t.Errorf("the old file now holds %q", b)
	}
	if ents, _ := os.ReadDir(outDir); len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("beside the output: %q, want only %s", slices.Sorted(slices.Values(names)), filepath.Base(out))
	}
}

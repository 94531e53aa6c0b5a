package corefile

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestCompressedCores compresses a real core with the reference command
// line tools and checks that the compressed core opens to the same
// content as the plain one.
func TestCompressedCores(t *testing.T) {
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	core, facts := crash(t, prog, "segv", "1")
	plain, err := Open(core, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	for _, tc := range []struct {
		kind, tool, ext string
		args            []string
	}{
		{"zstd", "zstd", ".zst", []string{"-q", "-k", "--long=27"}},
		{"xz", "xz", ".xz", []string{"-k", "-T1", "-0"}},
		{"gzip", "gzip", ".gz", []string{"-k", "-1"}},
		{"lz4", "lz4", ".lz4", []string{"-q", "-k"}},
		{"lz4", "lz4", ".lz4l", []string{"-q", "-k", "-l"}},
	} {
		t.Run(tc.tool+tc.ext, func(t *testing.T) {
			testenv.NeedTool(t, tc.tool)
			out := core + tc.ext
			args := append(slices.Clone(tc.args), core)
			if tc.tool == "lz4" {
				args = append(args, out)
			}
			if b, err := exec.Command(tc.tool, args...).CombinedOutput(); err != nil {
				t.Fatalf("%s %v: %v\n%s", tc.tool, args, err, b)
			}
			if tc.kind == "zstd" || tc.kind == "xz" || tc.kind == "gzip" {
				if err := os.Rename(core+map[string]string{"zstd": ".zst", "xz": ".xz", "gzip": ".gz"}[tc.kind], out); err != nil {
					t.Fatal(err)
				}
			}
			tmp := t.TempDir()
			c, err := Open(out, Options{TempDir: tmp})
			if err != nil {
				t.Fatal(err)
			}
			if c.Compression != tc.kind || c.Path != out {
				t.Errorf("compression %q path %q", c.Compression, c.Path)
			}
			if !slices.Equal(c.Segments, plain.Segments) || !slices.Equal(c.Mappings, plain.Mappings) || len(c.Threads) != len(plain.Threads) || c.Signal.String() != plain.Signal.String() {
				t.Errorf("decompressed core differs from the plain one")
			}
			checkMemory(t, c, facts)
			if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
				t.Errorf("temporary files left: %v", ents)
			}
			c.Close()

			// A cut stream: an error or a truncated core, never a panic.
			raw, _ := os.ReadFile(out)
			cut := out + ".cut"
			os.WriteFile(cut, raw[:len(raw)/2], 0o644)
			if c, err := Open(cut, Options{TempDir: tmp}); err == nil {
				if !hasWarning(c, "stream broken") {
					t.Errorf("cut stream opened without a warning: %q", c.Warnings)
				}
				c.Close()
			} else if !strings.Contains(err.Error(), cut) {
				t.Errorf("error does not name the file: %v", err)
			}
		})
	}
	t.Run("garbage", func(t *testing.T) {
		p := dir + "/garbage.zst"
		os.WriteFile(p, []byte{0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3, 4, 5}, 0o644)
		_, err := Open(p, Options{TempDir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), "zstd") || errors.Is(err, os.ErrNotExist) {
			t.Errorf("garbage zstd: %v", err)
		}
	})
}

// TestCutLZ4CoreSalvaged cuts lz4-compressed cores (4 MiB blocks by
// default, linked blocks, small blocks with checksums, the legacy format)
// in the middle. lz4.Reader decodes whole blocks only, so a core cut in
// its first block gave "unexpected EOF" and nothing, while zstd, xz and
// gzip give everything up to the cut: now lz4 does too, with the bytes
// of the core as they were.
func TestCutLZ4CoreSalvaged(t *testing.T) {
	testenv.NeedTool(t, "lz4")
	core := "../testdata/cores/segv-static/core" // a kernel's core of 364 KiB
	want, err := os.ReadFile(core)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) >= 4<<20 {
		t.Fatalf("core of %d bytes: the test wants one inside a single 4 MiB block", len(want))
	}
	plain, err := Open(core, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	for name, args := range map[string][]string{
		"default":      {"-q", "-k"},
		"linked":       {"-q", "-k", "-BD"},
		"small-blocks": {"-q", "-k", "-B4", "-BX", "--content-size"},
		"legacy":       {"-q", "-k", "-l"},
		"linked-small": {"-q", "-k", "-B4", "-BD"},
		"fast":         {"-q", "-k", "-B4", "--fast=65537"},
	} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "core.lz4")
			if b, err := exec.Command("lz4", append(args, core, out)...).CombinedOutput(); err != nil {
				t.Fatalf("lz4 %v: %v\n%s", args, err, b)
			}
			raw, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			whole, err := Open(out, Options{TempDir: t.TempDir()})
			if err != nil {
				t.Fatalf("whole stream: %v", err)
			}
			if !bytes.Equal(whole.data, want) || len(whole.Warnings) != len(plain.Warnings) {
				t.Errorf("whole stream: %d bytes, warnings %q; want the core's %d bytes", len(whole.data), whole.Warnings, len(want))
			}
			whole.Close()
			cut := out + ".cut"
			if err := os.WriteFile(cut, raw[:len(raw)/2], 0o644); err != nil {
				t.Fatal(err)
			}
			// A batch sniffs its inputs first: the cut core is a core.
			if s, err := SniffFile(cut); err != nil || s.Kind != KindCore || s.Compression != "lz4" {
				t.Errorf("sniffing the cut stream: %+v, %v; want an lz4-compressed core", s, err)
			}
			c, err := Open(cut, Options{TempDir: t.TempDir()})
			if err != nil {
				t.Fatalf("stream cut at %d of %d bytes: %v", len(raw)/2, len(raw), err)
			}
			defer c.Close()
			if !hasWarning(c, "stream broken") {
				t.Errorf("no warning that the stream broke off: %q", c.Warnings)
			}
			if len(c.data) == 0 || len(c.data) >= len(want) || !bytes.Equal(c.data, want[:len(c.data)]) {
				t.Errorf("salvaged %d bytes of %d: want a prefix of the core", len(c.data), len(want))
			}
			if len(c.Threads) != len(plain.Threads) {
				t.Errorf("%d threads, want %d", len(c.Threads), len(plain.Threads))
			}
		})
	}
}

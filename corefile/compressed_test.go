package corefile

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// compressWith runs a compressor CLI (the formats as users make them) on
// src, keeping src, and returns the compressed file's path.
func compressWith(t *testing.T, tool, src string) string {
	t.Helper()
	testenv.NeedTool(t, strings.TrimSuffix(tool, "-legacy")) // "lz4-legacy" is lz4 -l
	var args []string
	var out string
	switch tool {
	case "zstd":
		args, out = []string{"-q", "-k", "-f", src}, src+".zst"
	case "xz":
		args, out = []string{"-k", "-f", src}, src+".xz"
	case "gzip":
		args, out = []string{"-k", "-f", src}, src+".gz"
	case "lz4":
		args, out = []string{"-q", "-f", src, src + ".lz4"}, src+".lz4"
	case "lz4-legacy":
		tool, args, out = "lz4", []string{"-q", "-l", "-f", src, src + ".legacy.lz4"}, src+".legacy.lz4"
	}
	if b, err := exec.Command(tool, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", tool, args, err, b)
	}
	return out
}

// TestSniffCompressedCores compresses a real core with each CLI tool and
// checks that Sniff sees a core through the compression and DecompressTo
// (what triage uses for archive members) gives back the very bytes.
// Open's own decompression is TestCompressedCores.
func TestSniffCompressedCores(t *testing.T) {
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	core, _ := crash(t, prog, "segv", "2")
	orig, err := os.ReadFile(core)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tool, kind string }{
		{"zstd", "zstd"}, {"xz", "xz"}, {"gzip", "gzip"}, {"lz4", "lz4"}, {"lz4-legacy", "lz4"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			comp := compressWith(t, tc.tool, core)
			s, err := SniffFile(comp)
			if err != nil || s.Kind != KindCore || s.Compression != tc.kind {
				t.Fatalf("SniffFile = %+v, %v; want core, %s", s, err, tc.kind)
			}
			in, err := os.Open(comp)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			out, err := os.CreateTemp(dir, "out")
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			kind, size, err := DecompressTo(out, in)
			if err != nil || kind != tc.kind || size != int64(len(orig)) {
				t.Fatalf("DecompressTo = %q, %d, %v; want %q, %d", kind, size, err, tc.kind, len(orig))
			}
			got, _ := os.ReadFile(out.Name())
			if !bytes.Equal(got, orig) {
				t.Fatal("decompressed bytes differ from the original core")
			}
		})
	}
}

// TestDecompressToSparse checks that zero pages become holes: a core is
// mostly zeros, and a batch extracts thousands of them.
func TestDecompressToSparse(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 64<<20)
	copy(data, "\x7fELF")
	copy(data[len(data)-10:], "tail")
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(data)
	w.Close()
	out, err := os.Create(filepath.Join(dir, "x"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	kind, size, err := DecompressTo(out, &gz)
	if err != nil || kind != "gzip" || size != int64(len(data)) {
		t.Fatalf("DecompressTo = %q, %d, %v", kind, size, err)
	}
	got, _ := os.ReadFile(out.Name())
	if !bytes.Equal(got, data) {
		t.Fatal("content differs")
	}
	if used := diskUsage(t, out.Name()); used > 1<<20 {
		t.Errorf("64 MiB of mostly zeros use %d bytes on disk; want holes", used)
	}
}

// TestSniffKinds: executables are not cores, text is nothing, and
// compressed non-ELF data is broken rather than silently skipped.
func TestSniffKinds(t *testing.T) {
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("not a core at all, just some text\n"), 0o644)
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("\x7fEL"), 0o644)
	for _, tc := range []struct {
		path string
		want Kind
		comp string
	}{
		{prog, KindELF, ""},
		{text, KindOther, ""},
		{short, KindOther, ""},
		{compressWith(t, "gzip", text), KindBroken, "gzip"},
		{compressWith(t, "zstd", prog), KindELF, "zstd"},
	} {
		s, err := SniffFile(tc.path)
		if err != nil || s.Kind != tc.want || s.Compression != tc.comp {
			t.Errorf("SniffFile(%s) = %+v, %v; want %v %q", filepath.Base(tc.path), s, err, tc.want, tc.comp)
		}
		if tc.want == KindBroken && s.Err == nil {
			t.Errorf("SniffFile(%s): broken without a reason", filepath.Base(tc.path))
		}
	}
	// A compressed stream cut short is broken, not an error of the reader.
	b, _ := os.ReadFile(compressWith(t, "xz", prog))
	s, err := Sniff(bytes.NewReader(b[:20]))
	if err != nil || s.Kind != KindBroken {
		t.Errorf("Sniff(truncated xz) = %+v, %v; want broken", s, err)
	}
}

func TestParseSystemdName(t *testing.T) {
	boot := "0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		name string
		ok   bool
		want SystemdName
	}{
		{"core.prog.1000." + boot + ".4242.1700000000000000.zst", true,
			SystemdName{Comm: "prog", UID: 1000, BootID: boot, PID: 4242, Time: time.Unix(1700000000, 0).UTC(), Compression: "zstd"}},
		{"core.my\\x2eprog.0." + boot + ".1.1700000000123456", true,
			SystemdName{Comm: "my.prog", UID: 0, BootID: boot, PID: 1, Time: time.UnixMicro(1700000000123456).UTC()}},
		{"core.a\\x20b.5." + boot + ".7.0.xz", true,
			SystemdName{Comm: "a b", UID: 5, BootID: boot, PID: 7, Time: time.UnixMicro(0).UTC(), Compression: "xz"}},
		{"core", false, SystemdName{}},
		{"core.1234", false, SystemdName{}},
		{"core.prog.1000.nothex.4242.1700000000000000", false, SystemdName{}},
		{"core.prog.x." + boot + ".4242.1700000000000000", false, SystemdName{}},
		{"core.prog.1000." + boot + ".0.1700000000000000", false, SystemdName{}},
		{"vmcore.prog.1000." + boot + ".4242.17", false, SystemdName{}},
	} {
		got, ok := ParseSystemdName(tc.name)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseSystemdName(%q) = %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzSniff: hostile headers and compressed streams give a kind, never a
// panic, a hang or a large allocation.
func FuzzSniff(f *testing.F) {
	f.Add([]byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00"))
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0})
	f.Add([]byte{0xfd, '7', 'z', 'X', 'Z', 0, 0, 0})
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0})
	f.Add([]byte{0x04, 0x22, 0x4d, 0x18, 0x64, 0x40, 0xa7})
	f.Add([]byte{0x02, 0x21, 0x4c, 0x18, 0xff, 0xff, 0, 0})
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00 and more"))
	w.Close()
	f.Add(gz.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Sniff(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("Sniff on bytes: %v", err)
		}
		if s.Kind == KindBroken && s.Err == nil {
			t.Fatal("broken without a reason")
		}
	})
}

func FuzzParseSystemdName(f *testing.F) {
	f.Add("core.prog.1000.0123456789abcdef0123456789abcdef.4242.1700000000000000.zst")
	f.Add("core.a\\x2")
	f.Fuzz(func(t *testing.T, name string) {
		n, ok := ParseSystemdName(name)
		if ok && (n.PID <= 0 || len(n.BootID) != 32) {
			t.Fatalf("accepted %q as %+v", name, n)
		}
	})
}

// diskUsage is the space a file takes on disk (holes excluded).
func diskUsage(t *testing.T, path string) int64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks * 512
}

// TestSniffCompressedMinidump: a minidump compressed with each tool
// (crash collectors keep uploads as .dmp.gz, .dmp.xz, .dmp.zst) is a
// core, decompresses to its very bytes and opens as the minidump.
func TestSniffCompressedMinidump(t *testing.T) {
	dir := t.TempDir()
	orig, err := os.ReadFile(minidumpSeed)
	if err != nil {
		t.Fatal(err)
	}
	dmp := filepath.Join(dir, "crash.dmp")
	if err := os.WriteFile(dmp, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"gzip", "xz", "zstd", "lz4"} {
		comp := compressWith(t, tool, dmp)
		s, err := SniffFile(comp)
		if err != nil || s.Kind != KindCore || s.Compression != tool {
			t.Errorf("%s: SniffFile = %+v, %v; want a %s-compressed core", tool, s, err, tool)
			continue
		}
		in, err := os.Open(comp)
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.CreateTemp(dir, "out")
		if err != nil {
			t.Fatal(err)
		}
		_, size, err := DecompressTo(out, in)
		in.Close()
		out.Close()
		if got, _ := os.ReadFile(out.Name()); err != nil || size != int64(len(orig)) || !bytes.Equal(got, orig) {
			t.Errorf("%s: DecompressTo: %d bytes, %v; want the %d bytes of the minidump", tool, size, err, len(orig))
		}
		c, err := Open(comp, Options{Sysroot: dir})
		if err != nil {
			t.Errorf("%s: Open: %v", tool, err)
			continue
		}
		if c.Format != "minidump" || len(c.Threads) == 0 {
			t.Errorf("%s: Open: format %q, %d threads", tool, c.Format, len(c.Threads))
		}
		c.Close()
	}
}

package corefile

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestDecompressStopsAtCoreEnd: a compressed real core followed by 64 MiB
// of junk (what a decompression bomb looks like to the decompressor)
// decompresses to the core alone, with a warning: the core's own
// program headers say where it ends.
func TestDecompressStopsAtCoreEnd(t *testing.T) {
	testenv.NeedTool(t, "zstd")
	dir := t.TempDir()
	core, _ := crash(t, buildC(t, dir, "crash"), "segv", "1")
	plain, err := os.ReadFile(core)
	if err != nil {
		t.Fatal(err)
	}
	bomb := filepath.Join(dir, "core.zst")
	cmd := exec.Command("zstd", "-q", "-c")
	cmd.Stdin = io.MultiReader(bytes.NewReader(plain), io.LimitReader(repeatByte(0xa5), 64<<20))
	out, err := os.Create(bomb)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = out
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	out.Close()

	data, warning, err := decompressFile(bomb, "zstd", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != len(plain) || !bytes.Equal(data, plain) {
		t.Errorf("decompressed to %d bytes, want the core's %d", len(data), len(plain))
	}
	if !strings.Contains(warning, "past the core's end") {
		t.Errorf("warning %q, want one saying the stream goes on past the core", warning)
	}
	unmap(data)

	// The same through DecompressTo (archive members).
	f, err := os.Create(filepath.Join(dir, "member"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, _ := os.Open(bomb)
	defer in.Close()
	if _, size, err := DecompressTo(f, in); err != nil || size != int64(len(plain)) {
		t.Errorf("DecompressTo: %d bytes, %v; want %d", size, err, len(plain))
	}
	if st, _ := f.Stat(); st.Size() != int64(len(plain)) {
		t.Errorf("DecompressTo left a %d-byte file, want %d", st.Size(), len(plain))
	}
}

// TestDecompressBombBounded: streams of endless zeros stop early, never
// at the 1 TiB default: after the end an ELF header declares, or with an
// error as soon as the header declares more than COREUNWIND_MAX_CORE_SIZE,
// or at that limit when there is no ELF header. A bad value of the
// variable is an error naming it.
func TestDecompressBombBounded(t *testing.T) {
	small := syntheticSeeds()[0]
	huge := bytes.Clone(small)
	setFirstLoadFilesz(t, huge, 1<<36)
	for _, tc := range []struct {
		name, limit string
		head        []byte
		wantSize    int64
		wantErr     string
	}{
		{"ends where its headers say", "", small, int64(len(small)), ""},
		{"declares more than the limit", "64M", huge, 0, "headers say the core is"},
		{"no ELF header", "3M", []byte("not an ELF file"), 0, "no end in sight"},
		{"bad limit", "lots", small, 0, "COREUNWIND_MAX_CORE_SIZE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(maxCoreSizeEnv, tc.limit)
			// 8 GiB of zeros after the head: if the bound fails, the
			// size says so (in seconds, not the hours 1 TiB takes).
			r := &countingReader{r: io.MultiReader(bytes.NewReader(tc.head), io.LimitReader(repeatByte(0), 8<<30))}
			f, err := os.Create(filepath.Join(t.TempDir(), "out"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			start := time.Now()
			_, size, err := DecompressTo(f, r)
			switch {
			case tc.wantErr == "" && (err != nil || size != tc.wantSize):
				t.Errorf("%d bytes, %v; want %d", size, err, tc.wantSize)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want one saying %q", err, tc.wantErr)
			case tc.wantErr != "" && tc.limit != "lots" && !errors.Is(err, errTooLarge):
				t.Errorf("error %v is not errTooLarge", err)
			}
			if r.n > 4<<20 {
				t.Errorf("read %d bytes of the stream (%v), want at most a few MiB", r.n, time.Since(start))
			}
		})
	}
}

// TestELFExtentOfRealFiles: for kernel cores and the executables and
// libraries on this machine, the end elfExtent finds is the file's size.
func TestELFExtentOfRealFiles(t *testing.T) {
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	core, _ := crash(t, prog, "segv", "1")
	files := []string{core, prog, "../testdata/cores/abort-dyn/core", "../testdata/cores/segv-static/segv"}
	libs, _ := filepath.Glob("/usr/lib/x86_64-linux-gnu/libc.so.*")
	for _, p := range append(files, libs...) {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		end, ok := elfExtent(f, st.Size())
		if !ok || end != st.Size() {
			t.Errorf("%s: extent %d (known %v), want its size %d", p, end, ok, st.Size())
		}
		// A prefix without the program headers does not tell.
		if _, ok := elfExtent(f, 40); ok {
			t.Errorf("%s: extent known from 40 bytes", p)
		}
		f.Close()
	}
}

// FuzzELFExtent: elfExtent never panics, and when debug/elf reads the same
// bytes, nothing it finds in the file lies past the end elfExtent gives
// (sums saturate, as elfExtent's do).
func FuzzELFExtent(f *testing.F) {
	for _, s := range syntheticSeeds() {
		f.Add(s)
	}
	xnum := bytes.Clone(syntheticSeeds()[0])
	binary.LittleEndian.PutUint16(xnum[56:], 0xffff) // e_phnum = PN_XNUM
	f.Add(xnum)
	if s := realCoreSeed(f); s != nil {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		end, ok := elfExtent(bytes.NewReader(data), int64(len(data)))
		if !ok {
			return
		}
		if end < 52 {
			t.Fatalf("extent %d is inside the ELF header", end)
		}
		ef, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, p := range ef.Progs {
			if p.Type != elf.PT_NULL && addSat(p.Off, p.Filesz) > uint64(end) {
				t.Fatalf("segment at %#x+%#x past the extent %d", p.Off, p.Filesz, end)
			}
		}
		for _, s := range ef.Sections {
			if s.Type != elf.SHT_NOBITS && s.Type != elf.SHT_NULL && addSat(s.Offset, s.FileSize) > uint64(end) {
				t.Fatalf("section %q at %#x+%#x past the extent %d", s.Name, s.Offset, s.FileSize, end)
			}
		}
	})
}

// setFirstLoadFilesz sets the p_filesz of a 64-bit little-endian core's
// first PT_LOAD.
func setFirstLoadFilesz(t *testing.T, b []byte, size uint64) {
	t.Helper()
	le := binary.LittleEndian
	phoff, entsize, num := le.Uint64(b[32:]), uint64(le.Uint16(b[54:])), uint64(le.Uint16(b[56:]))
	for i := range num {
		ph := b[phoff+i*entsize:]
		if elf.ProgType(le.Uint32(ph)) == elf.PT_LOAD {
			le.PutUint64(ph[32:], size)
			return
		}
	}
	t.Fatal("no PT_LOAD")
}

type repeatByte byte

func (r repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// countingReader counts what was read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

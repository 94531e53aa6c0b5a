package inflate

import (
	"bytes"
	"compress/flate"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"io"
	"os"
	"testing"

	kflate "github.com/klauspost/compress/flate"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// compressedSection is one SHF_COMPRESSED zlib section of a real file:
// its deflate stream and what debug/elf inflates it to.
type compressedSection struct {
	name   string
	stream []byte
	want   []byte
}

// glibcDebugSections opens the separate debug file of the system's libc
// (libc6-dbg, found by build ID) and returns its zlib-compressed sections.
func glibcDebugSections(t testing.TB) []compressedSection {
	const libc = "/lib/x86_64-linux-gnu/libc.so.6"
	lf, err := elf.Open(libc)
	if err != nil {
		testenv.Unavailable(t, "no "+libc+": "+err.Error())
	}
	defer lf.Close()
	note := lf.Section(".note.gnu.build-id")
	if note == nil {
		t.Fatalf("%s has no build ID note", libc)
	}
	b, err := note.Data()
	if err != nil || len(b) < 16 {
		t.Fatalf("%s: build ID note: %v", libc, err)
	}
	// Elf_Nhdr: namesz, descsz, type, then "GNU\0" and the ID.
	namesz, descsz := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
	off := 12 + (namesz+3)&^3
	if uint64(off)+uint64(descsz) > uint64(len(b)) || descsz < 2 {
		t.Fatalf("%s: bad build ID note", libc)
	}
	id := hex.EncodeToString(b[off : off+descsz])
	path := "/usr/lib/debug/.build-id/" + id[:2] + "/" + id[2:] + ".debug"
	file, err := os.Open(path)
	if err != nil {
		testenv.Unavailable(t, "libc's debug file (libc6-dbg): "+err.Error())
	}
	defer file.Close()
	f, err := elf.NewFile(file)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []compressedSection
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_COMPRESSED == 0 || s.Type == elf.SHT_NOBITS {
			continue
		}
		raw := make([]byte, s.FileSize)
		if _, err := file.ReadAt(raw, int64(s.Offset)); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		// Elf64_Chdr (24 bytes), then the zlib header (2 bytes).
		if len(raw) < 26 || elf.CompressionType(binary.LittleEndian.Uint32(raw)) != elf.COMPRESS_ZLIB {
			continue
		}
		want, err := s.Data()
		if err != nil {
			t.Fatalf("%s: debug/elf: %v", s.Name, err)
		}
		out = append(out, compressedSection{s.Name, raw[26:], want})
	}
	if len(out) == 0 {
		t.Fatalf("%s has no zlib-compressed sections", path)
	}
	return out
}

// TestGlibcDebugSections: every zlib section of glibc's debug file
// inflates to what debug/elf (compress/zlib) gives, in one call and in
// steps.
func TestGlibcDebugSections(t *testing.T) {
	for _, s := range glibcDebugSections(t) {
		got, err := decodeAll(s.stream, len(s.want))
		if err != nil || !bytes.Equal(got, s.want) {
			t.Errorf("%s: one call: %d of %d bytes, err %v", s.name, len(got), len(s.want), err)
		}
		step := 0
		got, err = decodeSliding(s.stream, len(s.want), func() int { step = (step*7 + 1) % (200 << 10); return step + 1 })
		if err != nil || !bytes.Equal(got, s.want) {
			t.Errorf("%s: in steps: %d of %d bytes, err %v", s.name, len(got), len(s.want), err)
		}
	}
}

// BenchmarkInflateGlibcDebugInfo inflates glibc's .debug_info with this
// package, klauspost/compress/flate (what elfx used before) and
// compress/flate, into a buffer of the section's size.
func BenchmarkInflateGlibcDebugInfo(b *testing.B) {
	var info compressedSection
	for _, s := range glibcDebugSections(b) {
		if s.name == ".debug_info" {
			info = s
		}
	}
	if info.want == nil {
		b.Fatal("no compressed .debug_info")
	}
	dst := make([]byte, len(info.want))
	b.Run("inflate", func(b *testing.B) {
		b.SetBytes(int64(len(dst)))
		var d Decoder
		for b.Loop() {
			d.Reset(info.stream)
			if n, err := d.Decode(dst, 0); n != len(dst) || err != io.EOF {
				b.Fatalf("%d bytes, err %v", n, err)
			}
		}
	})
	b.Run("klauspost", func(b *testing.B) {
		b.SetBytes(int64(len(dst)))
		r := kflate.NewReader(nil)
		for b.Loop() {
			r.(kflate.Resetter).Reset(bytes.NewReader(info.stream), nil)
			if _, err := io.ReadFull(r, dst); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stdlib", func(b *testing.B) {
		b.SetBytes(int64(len(dst)))
		r := flate.NewReader(nil)
		for b.Loop() {
			r.(flate.Resetter).Reset(bytes.NewReader(info.stream), nil)
			if _, err := io.ReadFull(r, dst); err != nil {
				b.Fatal(err)
			}
		}
	})
}

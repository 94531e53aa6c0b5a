package triage_test

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/elfcore"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/triage"
)

// sparseTarSeeds are archives GNU tar writes for sparse files (old GNU
// sparse members with the map in the header, and with extension headers
// for more than four pieces; PAX sparse 1.0), holding a small core made
// sparse with holes between pieces of data, plus a plain member. GNU
// tar missing skips the test, or fails it under CI=true.
func sparseTarSeeds(tb testing.TB) [][]byte {
	testenv.NeedTool(tb, "tar")
	dir := tb.TempDir()
	core := (&elfcore.File{Class: elf.ELFCLASS64, Order: binary.LittleEndian, Machine: elf.EM_X86_64,
		Notes:    []elfcore.Note{{Name: "CORE", Type: 1, Desc: make([]byte, 336)}},
		Segments: []elfcore.Segment{{Vaddr: 0x10000, Memsz: 0x1000, Data: []byte{1, 2, 3}}}}).Bytes()
	write := func(name string, pieces int) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			tb.Fatal(err)
		}
		f.Write(core)
		for i := 1; i <= pieces; i++ {
			f.WriteAt([]byte("data"), int64(i)*64<<10)
		}
		f.Truncate(int64(pieces+1) * 64 << 10)
		f.Close()
	}
	write("core.few", 2)
	write("core.many", 7) // more than the header's four entries
	var seeds [][]byte
	for i, args := range [][]string{
		{"--format=gnu", "-S", "core.few", "core.many"},
		{"--format=posix", "--sparse-version=1.0", "-S", "core.few"},
		{"--format=gnu", "core.few"},
	} {
		out := filepath.Join(dir, "seed"+string(rune('0'+i))+".tar")
		cmd := exec.Command("tar", append([]string{"-cf", out}, args...)...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("tar %v: %v\n%s", args, err, b)
		}
		b, _ := os.ReadFile(out)
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzTarMembers: any archive, sparse members and their maps included,
// is read without a panic or an unbounded write; every member that looks
// like a core is a readable file or says why not, and nothing extracted
// is left once the inputs are closed.
func FuzzTarMembers(f *testing.F) {
	for _, s := range sparseTarSeeds(f) {
		f.Add(s)
	}
	f.Setenv("COREUNWIND_MAX_CORE_SIZE", "8M")
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		archive := filepath.Join(dir, "in.tar")
		os.WriteFile(archive, data, 0o644)
		tmp := filepath.Join(dir, "tmp")
		os.Mkdir(tmp, 0o755)
		triage.DiscoverFile(archive, archive, true, tmp, func(in *triage.Input) bool {
			defer in.Close()
			if in.Err != nil {
				return true
			}
			if !strings.HasPrefix(in.Path, tmp) {
				t.Fatalf("%s extracted to %s, outside %s", in.Name, in.Path, tmp)
			}
			st, err := os.Stat(in.Path)
			if err != nil {
				t.Fatalf("%s: %v", in.Name, err)
			}
			if st.Size() > 8<<20 {
				t.Fatalf("%s: extracted %d bytes, past the 8 MiB limit", in.Name, st.Size())
			}
			return true
		})
		left, _ := filepath.Glob(filepath.Join(tmp, "core-*"))
		if len(left) != 0 {
			t.Fatalf("extracted members left: %v", left)
		}
	})
}

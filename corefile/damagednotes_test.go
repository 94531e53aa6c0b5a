package corefile

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// noteHeaderOffset returns the file offset of the header of the k-th
// note (from 0) of type typ in the kernel core b, walking the PT_NOTE
// segment as debug/elf finds it.
func noteHeaderOffset(t *testing.T, path string, b []byte, typ uint32, k int) uint64 {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	le := binary.LittleEndian
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		for off := p.Off; off+12 <= p.Off+p.Filesz; {
			namesz, descsz := uint64(le.Uint32(b[off:])), uint64(le.Uint32(b[off+4:]))
			if le.Uint32(b[off+8:]) == typ {
				if k == 0 {
					return off
				}
				k--
			}
			off += 12 + (namesz+3)&^3 + (descsz+3)&^3
		}
	}
	t.Fatalf("%s: no note %s number %d", path, NoteTypeName(typ), k)
	return 0
}

func tids(c *Core) []int {
	var out []int
	for _, th := range c.Threads {
		out = append(out, th.TID)
	}
	return out
}

// TestDamagedNoteNameSize changes one byte, a note's name size, in a
// kernel's core of a four-thread process. The notes after it used to be
// read 4 or 64 bytes off: NT_PRPSINFO's 5 -> 4 silently lost the pid and
// command line, NT_PRSTATUS's 5 -> 69 made up a thread 0 with pc 0 in
// place of every thread, all without a warning. Now the damaged note is
// skipped with a warning that names it and where it is, every other note
// is read as it was, and nothing is made up.
func TestDamagedNoteNameSize(t *testing.T) {
	const path = "../testdata/cores/threads-dyn/core"
	intact, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	good, err := OpenBytes(intact, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(good.Threads) != 4 || good.PID == 0 || good.Threads[0].XState == nil || strings.Contains(strings.Join(good.Warnings, "\n"), DamagedPrefix) {
		t.Fatalf("intact core: threads %v pid %d warnings %q", tids(good), good.PID, good.Warnings)
	}
	for _, tc := range []struct {
		name    string
		typ     uint32
		k       int
		namesz  uint32
		threads []int // the TIDs left
		check   func(t *testing.T, c *Core)
	}{
		{"prpsinfo", NTPrpsinfo, 0, 4, tids(good), func(t *testing.T, c *Core) {
			if c.PID != 0 || c.CommandLine != "" || c.CrashedTID != good.CrashedTID {
				t.Errorf("pid %d command line %q crashed %d: want unknown, unknown, %d", c.PID, c.CommandLine, c.CrashedTID, good.CrashedTID)
			}
		}},
		{"xstate", NTX86XState, 0, 5, tids(good), func(t *testing.T, c *Core) {
			if c.Threads[0].XState != nil || c.Threads[1].XState == nil || c.PID != good.PID {
				t.Errorf("first thread's XSAVE area %d bytes, second's %d: want none and all", len(c.Threads[0].XState), len(c.Threads[1].XState))
			}
		}},
		{"first-prstatus", NTPrstatus, 0, 69, tids(good)[1:], func(t *testing.T, c *Core) {
			if c.CrashedTID != 0 {
				t.Errorf("crashed thread %d: the dumping thread's note is gone, want none", c.CrashedTID)
			}
		}},
		{"second-prstatus", NTPrstatus, 1, 4, slices.Delete(tids(good), 1, 2), func(t *testing.T, c *Core) {
			if c.CrashedTID != good.CrashedTID {
				t.Errorf("crashed thread %d, want %d", c.CrashedTID, good.CrashedTID)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := slices.Clone(intact)
			off := noteHeaderOffset(t, path, b, tc.typ, tc.k)
			binary.LittleEndian.PutUint32(b[off:], tc.namesz)
			c, err := OpenBytes(b, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(tids(c), tc.threads) {
				t.Errorf("threads %v, want %v", tids(c), tc.threads)
			}
			if c.Signal == nil || good.Signal.String() != c.Signal.String() || len(c.Mappings) != len(good.Mappings) || len(c.Auxv) != len(good.Auxv) {
				t.Errorf("signal %v, %d mappings, %d auxv entries: the notes after the damaged one are lost", c.Signal, len(c.Mappings), len(c.Auxv))
			}
			want := DamagedPrefix + "note " + NoteTypeName(tc.typ)
			if !slices.ContainsFunc(c.Warnings, func(w string) bool {
				return strings.HasPrefix(w, want) && strings.Contains(w, "offset "+fmt.Sprintf("%#x", off))
			}) {
				t.Errorf("warnings %q: want one starting %q at offset %s", c.Warnings, want, fmt.Sprintf("%#x", off))
			}
			tc.check(t, c)
		})
	}
}

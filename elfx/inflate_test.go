package elfx

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// A section stream read by ranges that skip ahead (some gaps under the
// 32 KiB a match may reach back, some of megabytes), then go back to
// ranges given back, then on again, gives at every step the bytes
// debug/elf (compress/zlib) inflates: skipped ranges leave the history
// the stream goes on from, and inflating again restores what was given
// back.
func TestSectionStreamRanges(t *testing.T) {
	dbg := mustOpen(t, libcWithDebug(t).DebugFile())
	for _, name := range []string{".debug_info", ".debug_line"} {
		st, want := compressedSectionStream(t, dbg, name)
		check := func(lo, hi int) {
			buf, err := st.ensure(uint64(lo), uint64(hi))
			if err != nil || !bytes.Equal(buf[lo:hi], want[lo:hi]) {
				t.Fatalf("%s [%#x,%#x): err %v, bytes differ from debug/elf's: %v", name, lo, hi, err, !bytes.Equal(buf[lo:hi], want[lo:hi]))
			}
		}
		rng := rand.New(rand.NewPCG(3, 4))
		var asked [][2]int
		for lo := 0; lo < len(want)*2/3; {
			hi := min(len(want), lo+1+rng.IntN(20<<10))
			check(lo, hi)
			asked = append(asked, [2]int{lo, hi})
			gaps := []int{rng.IntN(32 << 10), rng.IntN(300 << 10), rng.IntN(len(want) / 8)}
			lo = hi + gaps[rng.IntN(len(gaps))]
		}
		if len(st.dropped) == 0 {
			t.Errorf("%s (%d bytes, %d ranges asked): reading ranges far apart gave nothing back", name, len(want), len(asked))
		}
		for _, r := range asked[:len(asked)/2] {
			check(r[0], r[1])
		}
		check(len(want)-100, len(want))
	}
}

// compressedSectionStream is a stream of dbg's compressed section name
// and the section's bytes as debug/elf inflates them.
func compressedSectionStream(t *testing.T, dbg *Object, name string) (*sectionStream, []byte) {
	t.Helper()
	s := dbg.ELF().Section(name)
	if s == nil {
		t.Fatalf("%s has no %s", dbg.name, name)
	}
	want, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	st, err := dbg.newSectionStream(name)
	if err != nil {
		t.Fatal(err)
	}
	if st.raw == nil {
		t.Fatalf("%s is not compressed in %s", name, dbg.name)
	}
	return st, want
}

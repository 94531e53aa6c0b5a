package corefile

import (
	"math/rand"
	"testing"
)

// benchSetup crashes the test program with four threads and returns its
// core. Each benchmark makes its own: b.TempDir goes away with the
// benchmark that created it.
func benchSetup(b *testing.B) (string, crashFacts) {
	prog := buildC(b, b.TempDir(), "crash")
	return crash(b, prog, "segv", "3")
}

// BenchmarkOpen measures opening a core: headers, notes, module grouping,
// build IDs from core memory and from the three files, file mapping.
func BenchmarkOpen(b *testing.B) {
	path, _ := benchSetup(b)
	b.ReportAllocs()
	for b.Loop() {
		c, err := Open(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// BenchmarkReadMem measures 8-byte reads at random places an unwinder
// would touch: stack and data (in the core) and read-only data and text
// (from the file overlay).
func BenchmarkReadMem(b *testing.B) {
	path, facts := benchSetup(b)
	c, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var addrs []uint64
	for _, s := range c.Segments {
		for off := uint64(0); off+8 <= s.Memsz && len(addrs) < 4096; off += 4096 {
			if c.ReadMem(s.Vaddr+off, make([]byte, 8)) == nil {
				addrs = append(addrs, s.Vaddr+off)
			}
		}
	}
	addrs = append(addrs, facts.RodataAddr, facts.GlobalAddr)
	rand.New(rand.NewSource(1)).Shuffle(len(addrs), func(i, j int) { addrs[i], addrs[j] = addrs[j], addrs[i] })
	var buf [8]byte
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := c.ReadMem(addrs[i%len(addrs)], buf[:]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

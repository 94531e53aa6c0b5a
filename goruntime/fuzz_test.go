package goruntime

import (
	"testing"
)

// FuzzGoroutines reads goroutines from memory the fuzzer writes: the
// allgs slice header, its pointers, the g's and the wait reason strings
// all lie in one region of fuzzer bytes, and so do the panic values
// and their types' names. Whatever the bytes, the reader
// returns within its bounds, never panics, and allocates nothing by a
// size it read.
func FuzzGoroutines(f *testing.F) {
	bin := selfBinary(f)
	if bin.PtrSize != 8 {
		f.Skip("the region is laid out for 64-bit targets")
	}
	r, err := NewReader(bin)
	if err != nil {
		f.Fatal(err)
	}
	const base = 0x10000
	b := &builder{r: r, mem: &fakeMemory{regions: map[uint64][]byte{}}}
	// Seed: allgs at base, two g's after it.
	seed := append(b.words(base+24, 2, 2), b.words(base+40, base+40+uint64(r.layout.size))...)
	seed = append(seed, b.g(1, StatusWaiting, 3, 0x401000, 0xc000100f00)...)
	seed = append(seed, b.g(2, StatusRunnable, 0, 0x402000, 0xc000200f00)...)
	f.Add(seed)
	// Seed: one g whose labels are a slice of one label ("k": "v"), read
	// as a slice and as a map's header.
	size := uint64(r.layout.size)
	gl := b.g(3, StatusWaiting, 3, 0x401000, 0xc000100f00)
	labels := base + 32 + size
	if r.info.labels >= 0 {
		r.b.Order.PutUint64(gl[r.info.labels:], labels)
	}
	seed2 := append(b.words(base+24, 1, 1), b.words(base+32)...)
	seed2 = append(seed2, gl...)
	seed2 = append(seed2, b.words(labels+24, 1, 1)...)
	seed2 = append(seed2, b.words(labels+56, 1, labels+57, 1)...)
	f.Add(append(seed2, 'k', 'v'))
	f.Add(b.words(base, 1<<62, 0))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		syms := map[string]uint64{SymBuildVersion: base, SymAllgs: base, SymWaitReasonStrings: base + 8, SymFirstModuledata: base + 16,
			SymSched: base + 24, SymAllp: base + 32, SymWork: base + 40, SymThrowClosure: base + 48, SymFatalClosure: base + 56}
		rd := &Reader{b: Binary{Symbols: syms, PtrSize: 8, Order: r.b.Order}, layout: r.layout, panic: r.panic, info: r.info}
		// Labels of both representations, whatever the program's.
		rdMap := *rd
		rdMap.info.labelsAs, rdMap.info.hmapCount, rdMap.info.hmapB, rdMap.info.hmapBuckets = labelsMap, 0, 9, 16
		rdSlice := *rd
		rdSlice.info.labelsAs = labelsSlice
		mem := &fakeMemory{regions: map[uint64][]byte{base: data}}
		now := rd.Now(mem)
		rd.FatalMessage(mem, base, base+uint64(len(data)))
		gs, warnings := rd.Goroutines(mem)
		if len(gs) > MaxGoroutines || len(warnings) > maxWarnings+2 {
			t.Fatalf("%d goroutines, %d warnings", len(gs), len(warnings))
		}
		for _, g := range gs {
			if len(g.WaitReason) > maxString || g.Status.Dead() {
				t.Fatalf("goroutine %+v", g)
			}
			rd.Panic(mem, &g)
			if len(rd.Panics(mem, &g)) > maxPanics {
				t.Fatalf("a chain of more than %d panics", maxPanics)
			}
			WaitMinutes(&g, now)
			rd.ThreadID(mem, g.LockedM)
			rd.SystemStackSP(mem, g.M)
			rd.SystemStackSP(mem, g.LockedM)
			for _, l := range append(rdMap.Labels(mem, &g), rdSlice.Labels(mem, &g)...) {
				if len(l.Key) > maxString || len(l.Value) > maxString {
					t.Fatalf("label %+v", l)
				}
			}
		}
		rd.Version(mem)
	})
}

// FuzzAllgsScan scans fuzzer bytes, as the writable data of a stripped
// program whose slices and g's all lie in it, for runtime.allgs:
// whatever the bytes, the scan returns, never panics, allocates nothing
// by a length it read, and an address it returns is a header in the
// data whose entries are plausible g's.
func FuzzAllgsScan(f *testing.F) {
	b := newBuilder(f)
	const base = 0x10000
	size := uint64(b.r.layout.size)
	// Seed: allgs at base, its two entries after it, then the g's.
	seed := append(b.words(base+24, 2, 2), b.words(base+40, base+40+size)...)
	seed = append(seed, b.g(1, StatusRunning, 0, 0x401000, 0xc000100f00)...)
	seed = append(seed, b.g(2, StatusWaiting, 3, 0x402000, 0xc000200f00)...)
	f.Add(seed)
	// Seed: the same slice twice (ambiguous).
	f.Add(append(b.words(base+48, 1, 1, base+48, 1, 1), b.g(1, StatusRunning, 0, 0x401000, 0xc000100f00)...))
	f.Add(b.words(base, 1<<62, 1<<62))
	f.Add([]byte{})
	bin := scanBinary(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		mem := &fakeMemory{regions: map[uint64][]byte{base: data}}
		addr, err := AllgsInData(mem, bin, base, base+uint64(len(data)))
		if err != nil {
			return
		}
		if addr < base || addr+24 > base+uint64(len(data)) {
			t.Fatalf("allgs at %#x, outside the data", addr)
		}
		r := &Reader{b: Binary{Symbols: map[string]uint64{SymAllgs: addr}, PtrSize: 8, Order: bin.Order}, layout: b.r.layout, info: b.r.info}
		if gs, warnings := r.Goroutines(mem); len(gs) == 0 || len(warnings) != 0 {
			t.Fatalf("allgs at %#x: %d goroutines, warnings %q", addr, len(gs), warnings)
		}
	})
}

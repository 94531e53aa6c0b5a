package goruntime

import (
	"strings"
	"testing"
)

// scanBinary is b's program as AllgsInData takes it: its layouts, no
// symbols.
func scanBinary(b *builder) Binary {
	return Binary{PtrSize: 8, Order: b.r.b.Order, Layouts: &Layouts{layout: b.r.layout, info: b.r.info}}
}

// The fake program's data: allgs among other slices, and its g's.
const (
	scanData, scanDataEnd  = 0x10000, 0x10100
	scanList               = 0x20000
	scanG1, scanG2, scanG3 = 0x30000, 0x31000, 0x32000
	scanOther              = 0x40000
)

// putScanProgram lays out a program whose data (scanData) holds, at
// scanData+0x40, allgs: three g's, one dead with its stack freed; and
// decoys the scan must pass over: a slice of pointers to words that
// are no g's, a header whose len exceeds its cap, one of 2^40 entries.
func putScanProgram(b *builder) {
	data := make([]byte, scanDataEnd-scanData)
	copy(data[0x00:], b.words(scanOther, 2, 4))        // pointers to no g's
	copy(data[0x18:], b.words(scanList, 3, 2))         // len > cap
	copy(data[0x40:], b.words(scanList, 3, 4))         // allgs
	copy(data[0x60:], b.words(scanList, 1<<40, 1<<40)) // too long
	b.put(scanData, data)
	b.put(scanList, b.words(scanG1, scanG2, scanG3))
	b.put(scanG1, b.g(1, StatusRunning, 0, 0x401000, 0xc000100f00))
	b.put(scanG2, b.g(5, StatusWaiting|statusScan, 3, 0x402000, 0xc000200f00))
	b.put(scanG3, b.g(6, StatusDead, 0, 0, 0))
	b.put(scanOther, b.words(scanG1+8, scanG2+16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
}

// TestAllgsInData: the scan finds allgs, and only it, among the data's
// slices, and the reader then reads its goroutines.
func TestAllgsInData(t *testing.T) {
	b := newBuilder(t)
	putScanProgram(b)
	addr, err := AllgsInData(b.mem, scanBinary(b), scanData, scanDataEnd)
	if err != nil || addr != scanData+0x40 {
		t.Fatalf("allgs at %#x, %v; want %#x", addr, err, scanData+0x40)
	}
}

// TestAllgsInDataRejects: a slice one of whose g's is implausible is no
// allgs; two valid slices are ambiguous; neither gives an address.
func TestAllgsInDataRejects(t *testing.T) {
	for name, spoil := range map[string]func(b *builder){
		"stack not a power of two": func(b *builder) {
			g := b.g(5, StatusWaiting, 3, 0x402000, 0xc000200f00)
			b.r.b.Order.PutUint64(g[b.r.layout.stackHi:], 0xc000200000+3000)
			b.put(scanG2, g)
		},
		"unknown status": func(b *builder) { b.put(scanG2, b.g(5, 42, 0, 0x402000, 0xc000200f00)) },
		"duplicate goid": func(b *builder) { b.put(scanG2, b.g(1, StatusWaiting, 3, 0x402000, 0xc000200f00)) },
		"live g without a goid": func(b *builder) {
			b.put(scanG2, b.g(0, StatusWaiting, 3, 0x402000, 0xc000200f00))
		},
		"all dead": func(b *builder) {
			b.put(scanG1, b.g(1, StatusDead, 0, 0, 0))
			b.put(scanG2, b.g(5, StatusDead, 0, 0, 0))
		},
		"unreadable g": func(b *builder) { delete(b.mem.regions, scanG2) },
		"ambiguous": func(b *builder) {
			b.mem.regions[scanData] = append(b.words(scanList, 2, 2), b.mem.regions[scanData][24:]...)
		},
	} {
		t.Run(name, func(t *testing.T) {
			b := newBuilder(t)
			putScanProgram(b)
			spoil(b)
			addr, err := AllgsInData(b.mem, scanBinary(b), scanData, scanDataEnd)
			if err == nil {
				t.Fatalf("allgs found at %#x", addr)
			}
			if name == "ambiguous" && !strings.Contains(err.Error(), "ambiguous") {
				t.Errorf("error %q does not say the slices are ambiguous", err)
			}
		})
	}
}

// TestAllgsInDataBounded: a region past the bound is not read at all,
// and one the core lacks yields an error, not a panic.
func TestAllgsInDataBounded(t *testing.T) {
	b := newBuilder(t)
	if _, err := AllgsInData(b.mem, scanBinary(b), 0, 1<<40); err == nil {
		t.Error("a 1 TiB region is scanned")
	}
	if _, err := AllgsInData(b.mem, scanBinary(b), 0x1000, 0x2000); err == nil {
		t.Error("allgs found in unmapped memory")
	}
	if _, err := AllgsInData(b.mem, Binary{PtrSize: 8}, scanData, scanDataEnd); err == nil {
		t.Error("a scan without layouts")
	}
}

package gopclntab

import (
	"debug/elf"
	"encoding/binary"
	"testing"
)

// craftedText is the text address of craftedTable's one function.
const craftedText = 0x1000

// craftedTable is a small table written by hand from the format: one
// function main.f of 16 bytes in a.go, with a call to main.g inlined at
// its bytes 8 to 15, and the inlining tree for the gofunc bytes.
func craftedTable() (table, gofunc []byte) {
	le := binary.LittleEndian
	var b []byte
	u32 := func(v uint32) { b = le.AppendUint32(b, v) }
	u64 := func(v uint64) { b = le.AppendUint64(b, v) }
	const (
		hdr       = 8 + 8*8
		funcnames = hdr               // "main.f\0main.g\0"
		cutab     = funcnames + 14    // one uint32
		filetab   = cutab + 4         // "a.go\0"
		pctab     = filetab + 5       // tables below
		pcsp      = 1                 // offsets in pctab (0 is none)
		pcfile    = pcsp + 5          //
		pcln      = pcfile + 3        //
		pcinl     = pcln + 5          //
		functab   = pctab + pcinl + 5 // entries, then the record
	)
	u32(magic120)
	b = append(b, 0, 0, 1, 8)
	u64(1) // nfunc
	u64(1) // nfiles
	u64(0) // textStart (unused)
	for _, off := range []uint64{funcnames, cutab, filetab, pctab, functab} {
		u64(off)
	}
	b = append(b, "main.f\x00main.g\x00"...)
	u32(0)
	b = append(b, "a.go\x00"...)
	b = append(b, 0)
	b = append(b, 2, 4, 16, 12, 0) // sp: 0 for 4 bytes, then 8 for 12
	b = append(b, 2, 16, 0)        // file 0 for 16 bytes
	b = append(b, 22, 8, 20, 8, 0) // line 10 for 8 bytes, then 20 for 8
	b = append(b, 0, 8, 2, 8, 0)   // inline index -1 for 8 bytes, then 0 for 8
	u32(0)
	u32(16) // main.f's record, after the two entries
	u32(16)
	u32(0) // end of the text
	// _func: entryOff, nameOff, args, deferreturn, pcsp, pcfile, pcln,
	// npcdata, cuOffset, startLine, funcID/flag/pad/nfuncdata.
	for _, v := range []uint32{0, 0, 0, 0, pcsp, pcfile, pcln, 3, 0, 9} {
		u32(v)
	}
	b = append(b, 0, 0, 0, 4)
	u32(0)
	u32(0)
	u32(pcinl)
	u32(^uint32(0))
	u32(^uint32(0))
	u32(^uint32(0))
	u32(0) // FUNCDATA_InlTree at gofunc+0
	// The inlining tree: main.g called from main.f's byte 2.
	gofunc = []byte{0, 0, 0, 0}
	gofunc = le.AppendUint32(gofunc, 7)
	gofunc = le.AppendUint32(gofunc, 2)
	gofunc = le.AppendUint32(gofunc, 19)
	return b, gofunc
}

// TestCraftedTable: the format as written down, read back.
func TestCraftedTable(t *testing.T) {
	data, gofunc := craftedTable()
	tab, err := Parse(data, craftedText)
	if err != nil {
		t.Fatal(err)
	}
	fn, ok := tab.FuncAt(craftedText + 10)
	if !ok || fn.Name != "main.f" || fn.Entry != craftedText || fn.End != craftedText+16 || fn.StartLine != 9 {
		t.Fatalf("function %+v, %v", fn, ok)
	}
	if _, ok := tab.FuncAt(craftedText + 16); ok {
		t.Error("a function past the text")
	}
	for _, c := range []struct {
		pc   uint64
		want int64
	}{{0, 0}, {3, 0}, {4, 8}, {15, 8}} {
		if d, ok := fn.SPDelta(craftedText + c.pc); !ok || d != c.want {
			t.Errorf("SP delta at +%d: %d, %v; want %d", c.pc, d, ok, c.want)
		}
	}
	// Without the tree, main.f alone, at the inlined line.
	if fr, err := fn.Frames(craftedText + 10); err != nil || len(fr) != 1 || fr[0] != (Frame{Function: "main.f", File: "a.go", Line: 20}) {
		t.Errorf("frames without the tree: %+v, %v", fr, err)
	}
	tab.SetGoFunc(gofunc)
	want := []Frame{{Function: "main.g", File: "a.go", Line: 20, Inlined: true}, {Function: "main.f", File: "a.go", Line: 10}}
	fr, err := fn.Frames(craftedText + 10)
	if err != nil || len(fr) != 2 || fr[0] != want[0] || fr[1] != want[1] {
		t.Errorf("frames %+v, %v; want %+v", fr, err, want)
	}
	if g, ok := tab.FuncByName("main.f"); !ok || g.Entry != fn.Entry {
		t.Errorf("FuncByName: %+v, %v", g, ok)
	}
	if _, ok := tab.FuncByName("main.g"); ok {
		t.Error("an inlined function found as a function of its own")
	}
}

// TestCraftedInlineCycle: an inlining tree whose call is its own parent
// ends with an error, not a loop.
func TestCraftedInlineCycle(t *testing.T) {
	data, gofunc := craftedTable()
	binary.LittleEndian.PutUint32(gofunc[8:], 10) // parent pc inside the inlined code
	tab, err := Parse(data, craftedText)
	if err != nil {
		t.Fatal(err)
	}
	tab.SetGoFunc(gofunc)
	fn, _ := tab.FuncAt(craftedText + 10)
	if fr, err := fn.Frames(craftedText + 10); err == nil {
		t.Errorf("frames of a cyclic tree: %+v", fr)
	}
}

// sharedPCSPTable is a table of n functions of size bytes each, every
// one's pcsp the same table of steps one-byte runs: what a hostile
// table can make of the linker's sharing of identical tables.
func sharedPCSPTable(n, size, steps int) []byte {
	le := binary.LittleEndian
	var b []byte
	u32 := func(v uint32) { b = le.AppendUint32(b, v) }
	u64 := func(v uint64) { b = le.AppendUint64(b, v) }
	const hdr = 8 + 8*8
	pctab := hdr + 8 // after "main.f\0" and a padding byte
	functab := pctab + 1 + 2*steps + 1
	u32(magic120)
	b = append(b, 0, 0, 1, 8)
	u64(uint64(n))
	u64(0)
	u64(0)
	for _, off := range []int{hdr, hdr, hdr, pctab, functab} {
		u64(uint64(off))
	}
	b = append(b, "main.f\x00\x00"...)
	b = append(b, 0)
	for range steps {
		b = append(b, 2, 1) // +1, one byte
	}
	b = append(b, 0)
	recs := 8 * (n + 1)
	for i := range n {
		u32(uint32(i * size))
		u32(uint32(recs + i*funcSize))
	}
	u32(uint32(n * size))
	u32(0)
	for i := range n {
		for _, v := range []uint32{uint32(i * size), 0, 0, 0, 1, 0, 0, 0, 0, 0} {
			u32(v)
		}
		b = append(b, 0, 0, 0, 0)
	}
	return b
}

// TestDebugFrameSharedPCSP: functions sharing one long pcsp table cannot
// make DebugFrame write rows without end: it refuses past its budget,
// and writes a table sharing a short one.
func TestDebugFrameSharedPCSP(t *testing.T) {
	tab, err := Parse(sharedPCSPTable(100, 100000, 100000), craftedText)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.DebugFrame(elf.EM_X86_64); err == nil {
		t.Error("ten million rows written from a table of 200 kB")
	}
	tab, err = Parse(sharedPCSPTable(100, 1000, 1000), craftedText)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.DebugFrame(elf.EM_X86_64); err != nil {
		t.Errorf("a table of 100 functions sharing a pcsp table: %v", err)
	}
}

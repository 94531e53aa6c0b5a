package unwtab

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"testing"

	crossia64 "github.com/coreunwind/coreunwind/internal/crossarch/ia64"
)

// seedDescriptors adds every descriptor area of the directive suite
// (assembled at test time when the tools are present) and a few
// hand-made areas.
func seedDescriptors(f *testing.F) {
	f.Add([]byte{0x06, 0xe6, 0x00, 0xb1, 0x21, 0x2f, 0xc0, 0x02})
	f.Add([]byte{0xb8, 0xff})
	f.Add([]byte{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	for _, obj := range crossia64.DirectiveSuite(f, "../testdata/directives.s") {
		addInfos(f, obj)
	}
}

func addInfos(f *testing.F, obj []byte) {
	ef, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		return
	}
	tab, err := ReadTable(ef)
	if err != nil {
		return
	}
	for i := range tab.Entries {
		if in, err := tab.Entries[i].Info(); err == nil {
			f.Add(in.Desc)
		}
	}
}

// FuzzDecode: any bytes decode to records or an error, and every record
// formats without panicking.
func FuzzDecode(f *testing.F) {
	seedDescriptors(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := Decode(b)
		var de *DecodeError
		if err != nil && !errors.As(err, &de) {
			t.Fatalf("error of type %T", err)
		}
		for _, r := range recs {
			_ = r.String()
		}
	})
}

// FuzzInfo: an info block header with any length is bounded by the
// bytes present.
func FuzzInfo(f *testing.F) {
	f.Add(make([]byte, 16), uint64(0), false)
	hdr := make([]byte, 24)
	binary.LittleEndian.PutUint64(hdr, 1<<48|3<<32|1)
	f.Add(hdr, uint64(0), false)
	f.Add(hdr, uint64(8), true)
	f.Fuzz(func(t *testing.T, b []byte, off uint64, be bool) {
		var order binary.ByteOrder = binary.LittleEndian
		if be {
			order = binary.BigEndian
		}
		in, err := ParseInfo(b, off, order, 8)
		if err == nil && uint64(len(in.Desc)) > uint64(len(b)) {
			t.Fatalf("descriptor area larger than the input")
		}
	})
}

// FuzzTable: a damaged object gives a table, warnings or an error, and
// every entry's info block parses or fails cleanly.
func FuzzTable(f *testing.F) {
	for _, obj := range crossia64.DirectiveSuite(f, "../testdata/directives.s") {
		f.Add(obj)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ef, err := elf.NewFile(bytes.NewReader(b))
		if err != nil {
			return
		}
		for _, s := range ef.Sections {
			if s.Size > 1<<20 {
				return // debug/elf would allocate it
			}
		}
		tab, err := ReadTable(ef)
		if err != nil {
			return
		}
		for i := range tab.Entries {
			if in, err := tab.Entries[i].Info(); err == nil {
				_, _ = Decode(in.Desc)
			}
		}
	})
}

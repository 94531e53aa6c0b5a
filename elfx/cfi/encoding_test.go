package cfi

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

func TestReadEncoded(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	bases := ptrBases{pc: 0x1000, data: 0x8000, hasData: true}
	cases := []struct {
		name    string
		order   binary.ByteOrder
		ptr     int
		enc     uint8
		b       []byte
		pre     int // bytes before the field (its position in the section)
		want    uint64
		wantErr string
	}{
		{"absptr 8", le, 8, PEAbsPtr, []byte{1, 2, 3, 4, 5, 6, 7, 8}, 0, 0x0807060504030201, ""},
		{"absptr 4 BE", be, 4, PEAbsPtr, []byte{0x12, 0x34, 0x56, 0x78}, 0, 0x12345678, ""},
		{"uleb128", le, 8, PEULEB128, []byte{0xe5, 0x8e, 0x26}, 0, 624485, ""},
		{"sleb128", le, 8, PESLEB128, []byte{0x7f}, 0, ^uint64(0), ""},
		{"sleb128 4-byte ptr", le, 4, PESLEB128, []byte{0x7f}, 0, 0xffffffff, ""},
		{"udata2 BE", be, 8, PEUData2, []byte{0xff, 0xfe}, 0, 0xfffe, ""},
		{"sdata2", le, 8, PESData2, []byte{0xfe, 0xff}, 0, ^uint64(1), ""},
		{"udata4", le, 8, PEUData4, []byte{0xff, 0xff, 0xff, 0xff}, 0, 0xffffffff, ""},
		{"sdata4", le, 8, PESData4, []byte{0xff, 0xff, 0xff, 0xff}, 0, ^uint64(0), ""},
		{"udata8 BE", be, 8, PEUData8, []byte{0, 0, 0, 1, 0, 0, 0, 2}, 0, 0x100000002, ""},
		{"sdata8", le, 8, PESData8, []byte{0xf8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 0, ^uint64(7), ""},
		{"pcrel sdata4", le, 8, PEPCRel | PESData4, []byte{0xf0, 0xff, 0xff, 0xff}, 8, 0x1000 + 8 - 16, ""},
		{"pcrel 32-bit wraps", be, 4, PEPCRel | PESData4, []byte{0x80, 0, 0, 0}, 0, 0x80001000, ""},
		{"datarel sdata4", le, 8, PEDataRel | PESData4, []byte{0x10, 0, 0, 0}, 0, 0x8010, ""},
		{"indirect pcrel: address of the pointer", le, 8, PEIndirect | PEPCRel | PESData4, []byte{4, 0, 0, 0}, 4, 0x1000 + 4 + 4, ""},
		// Field at 0x1003: skip 5 bytes to 0x1008, then an 8-byte pointer.
		{"aligned", le, 8, PEAligned, []byte{0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0}, 3, 9, ""},
		{"textrel", le, 8, PETextRel | PEUData4, []byte{0, 0, 0, 0}, 0, 0, "text/function"},
		{"funcrel", le, 8, PEFuncRel | PEUData4, []byte{0, 0, 0, 0}, 0, 0, "text/function"},
		{"omit", le, 8, PEOmit, nil, 0, 0, ""},
		{"bad format", le, 8, 0x05, []byte{0}, 0, 0, "invalid"},
		{"truncated", le, 8, PEUData4, []byte{1, 2}, 0, 0, "end of data"},
	}
	for _, tc := range cases {
		b := append(make([]byte, tc.pre), tc.b...)
		r := reader{b: b, pos: tc.pre, order: tc.order}
		got, err := readEncoded(&r, tc.enc, tc.ptr, bases)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: got %#x, %v; want error containing %q", tc.name, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %#x, %v; want %#x", tc.name, got, err, tc.want)
		}
	}
	r := reader{b: []byte{0}, order: le}
	if _, err := readEncoded(&r, PEDataRel|PEUData4, 8, ptrBases{}); err == nil {
		t.Error("datarel without a data base: no error")
	}
	if !errors.Is(errUnsupportedBase, errUnsupportedBase) {
		t.Fatal()
	}
}

// Truncating a real .eh_frame anywhere gives errors and the FDEs before the
// cut, never a panic.
func TestTruncatedEHFrame(t *testing.T) {
	secs, order, ptr := readSections(t, "/usr/lib/x86_64-linux-gnu/libc.so.6")
	eh := secs[".eh_frame"]
	full, _ := NewEHFrame(eh.data, eh.addr, nil, 0, order, ptr)
	all, err := full.FDEs()
	if err != nil {
		t.Fatal(err)
	}
	cies, _ := full.CIEs()
	boundary := map[int]bool{}
	for _, f := range all {
		boundary[int(f.Offset)] = true
	}
	for _, c := range cies {
		boundary[int(c.Offset)] = true
	}
	for cut := 1; cut < len(eh.data); cut += 4099 {
		tab, _ := NewEHFrame(eh.data[:cut], eh.addr, nil, 0, order, ptr)
		fdes, err := tab.FDEs()
		if len(fdes) > len(all) {
			t.Fatalf("cut %d: %d FDEs > %d", cut, len(fdes), len(all))
		}
		for i, f := range fdes {
			if f.Offset != all[i].Offset || f.Begin != all[i].Begin {
				t.Fatalf("cut %d: FDE %d differs", cut, i)
			}
		}
		if err == nil && !boundary[cut] {
			t.Errorf("cut %d: no error", cut)
		}
		var fe *FormatError
		if err != nil && !errors.As(err, &fe) {
			t.Errorf("cut %d: error %v is not a FormatError", cut, err)
		}
	}
}

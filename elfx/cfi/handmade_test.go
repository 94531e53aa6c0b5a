package cfi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
)

// builder writes CFI bytes by hand in a chosen byte order, so tests can
// cover layouts no local compiler produces (big-endian, 64-bit DWARF).
type builder struct {
	order binary.ByteOrder
	b     []byte
}

func (w *builder) u8(v ...byte) { w.b = append(w.b, v...) }
func (w *builder) u32(v uint32) { w.b = w.order.(binary.AppendByteOrder).AppendUint32(w.b, v) }
func (w *builder) u64(v uint64) { w.b = w.order.(binary.AppendByteOrder).AppendUint64(w.b, v) }
func (w *builder) str(s string) { w.b = append(append(w.b, s...), 0) }

// patch32 writes v at pos (for lengths known only at the end).
func (w *builder) patch32(pos int, v uint32) { w.order.PutUint32(w.b[pos:], v) }

// entry32 appends a 32-bit-DWARF entry: length, then body(w) padded with
// DW_CFA_nop to a multiple of align.
func (w *builder) entry32(align int, body func()) int {
	start := len(w.b)
	w.u32(0)
	body()
	for (len(w.b)-start)%align != 0 {
		w.u8(0)
	}
	w.patch32(start, uint32(len(w.b)-start-4))
	return start
}

// buildHPPALike returns a 32-bit .eh_frame (at ehAddr) and .eh_frame_hdr
// (at hdrAddr) in the given byte order, shaped like hppa-linux output:
// code alignment 4, data alignment -4, return address in r2, CFA on r30.
//
//	CIE  "zR", FDE encoding pcrel|sdata4, initial: def_cfa r30+0
//	FDE1 [0x20000, 0x20040):
//	  advance_loc 2 (8 bytes)    def_cfa_offset 64; offset r2 5 (CFA-20)
//	  advance_loc1 8 (32 bytes)  def_cfa_register r3; remember_state
//	  advance_loc 1              restore r2; def_cfa_offset 0
//	  advance_loc 1              restore_state
//	FDE2 [0x20040, 0x20048): no instructions
//	zero terminator
func buildHPPALike(order binary.ByteOrder, ehAddr, hdrAddr uint64) (eh, hdr []byte) {
	w := &builder{order: order}
	w.entry32(4, func() {
		w.u32(0)          // CIE id
		w.u8(1)           // version
		w.str("zR")       // augmentation
		w.u8(4)           // code_alignment_factor
		w.u8(0x7c)        // data_alignment_factor -4 (SLEB128)
		w.u8(2)           // return_address_register r2 (version 1: a byte)
		w.u8(1)           // augmentation data length
		w.u8(0x1b)        // FDE encoding: pcrel | sdata4
		w.u8(0x0c, 30, 0) // DW_CFA_def_cfa r30, 0
	})
	fde := func(begin uint64, size uint32, instr ...byte) int {
		return w.entry32(4, func() {
			w.u32(uint32(len(w.b))) // CIE pointer: back to offset 0
			w.u32(uint32(begin - (ehAddr + uint64(len(w.b)))))
			w.u32(size)
			w.u8(0) // augmentation data length
			w.u8(instr...)
		})
	}
	f1 := fde(0x20000, 0x40,
		0x42,     // advance_loc 2*4
		0x0e, 64, // def_cfa_offset 64
		0x82, 5, // offset r2, 5*-4
		0x02, 8, // advance_loc1 8*4
		0x0d, 3, // def_cfa_register r3
		0x0a,    // remember_state
		0x41,    // advance_loc 1*4
		0xc2,    // restore r2
		0x0e, 0, // def_cfa_offset 0
		0x41, // advance_loc 1*4
		0x0b) // restore_state
	f2 := fde(0x20040, 8)
	w.u32(0) // zero terminator

	h := &builder{order: order}
	h.u8(1, 0x1b, 0x03, 0x3b) // version, eh_frame_ptr pcrel|sdata4, count udata4, table datarel|sdata4
	h.u32(uint32(ehAddr - (hdrAddr + 4)))
	h.u32(2)
	for _, e := range [][2]uint64{{0x20000, ehAddr + uint64(f1)}, {0x20040, ehAddr + uint64(f2)}} {
		h.u32(uint32(e[0] - hdrAddr))
		h.u32(uint32(e[1] - hdrAddr))
	}
	return w.b, h.b
}

func TestHandmade32BitBothOrders(t *testing.T) {
	const ehAddr, hdrAddr = 0x10000, 0x0f000
	want := []string{ // worked out by hand from the instructions above
		"0x20000: cfa=r30+0",
		"0x20008: cfa=r30+64 r2=c-20",
		"0x20028: cfa=r3+64 r2=c-20",
		"0x2002c: cfa=r3+0",
		"0x20030: cfa=r3+64 r2=c-20",
	}
	for _, order := range []binary.ByteOrder{binary.BigEndian, binary.LittleEndian} {
		for _, withHdr := range []bool{true, false} {
			t.Run(fmt.Sprintf("%v/hdr=%v", order, withHdr), func(t *testing.T) {
				eh, hdr := buildHPPALike(order, ehAddr, hdrAddr)
				if !withHdr {
					hdr = nil
				}
				tab, err := NewEHFrame(eh, ehAddr, hdr, hdrAddr, order, 4)
				if err != nil {
					t.Fatal(err)
				}
				if tab.HasHeaderIndex() != withHdr {
					t.Fatalf("HasHeaderIndex = %v", tab.HasHeaderIndex())
				}
				fdes, err := tab.FDEs()
				if err != nil || len(fdes) != 2 {
					t.Fatalf("FDEs: %d, %v", len(fdes), err)
				}
				c := fdes[0].CIE
				if c.CodeAlign != 4 || c.DataAlign != -4 || c.RAColumn != 2 || c.FDEEncoding != 0x1b {
					t.Errorf("CIE = %+v", c)
				}
				f, err := tab.FDEForPC(0x2002e)
				if err != nil {
					t.Fatal(err)
				}
				if f.Begin != 0x20000 || f.End != 0x20040 {
					t.Fatalf("FDE [%#x,%#x)", f.Begin, f.End)
				}
				rows, err := f.Rows()
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, r := range rows {
					got = append(got, FormatRow(r, nil, 99))
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("rows:\n got %q\nwant %q", got, want)
				}
				for _, tc := range []struct {
					pc  uint64
					row int
				}{{0x20000, 0}, {0x20007, 0}, {0x20008, 1}, {0x20027, 1}, {0x20028, 2}, {0x2002c, 3}, {0x2003f, 4}} {
					r, err := f.RowAt(tc.pc)
					if err != nil {
						t.Fatal(err)
					}
					if s := FormatRow(r, nil, 99); s != want[tc.row] {
						t.Errorf("RowAt(%#x) = %s, want %s", tc.pc, s, want[tc.row])
					}
				}
				if f2, err := tab.FDEForPC(0x20047); err != nil || f2.Begin != 0x20040 {
					t.Errorf("FDEForPC(0x20047) = %v, %v", f2, err)
				}
				for _, pc := range []uint64{0x1ffff, 0x20048, 0} {
					if _, err := tab.FDEForPC(pc); !errors.Is(err, ErrNoFDE) {
						t.Errorf("FDEForPC(%#x): %v, want ErrNoFDE", pc, err)
					}
				}
			})
		}
	}
}

// A .debug_frame in the 64-bit DWARF format (initial length 0xffffffff
// then a 64-bit length; CIE id all ones) with a version 4 CIE.
func TestDebugFrame64BitDWARFCIEv4(t *testing.T) {
	w := &builder{order: binary.LittleEndian}
	entry64 := func(body func()) {
		start := len(w.b)
		w.u32(0xffffffff)
		w.u64(0)
		body()
		for (len(w.b)-start)%8 != 0 {
			w.u8(0)
		}
		w.order.PutUint64(w.b[start+4:], uint64(len(w.b)-start-12))
	}
	entry64(func() {
		w.u64(^uint64(0)) // CIE id
		w.u8(4)           // version 4
		w.str("")         // augmentation
		w.u8(8, 0)        // address_size, segment_selector_size
		w.u8(1)           // code_alignment_factor
		w.u8(0x78)        // data_alignment_factor -8
		w.u8(16)          // return_address_register (ULEB128 since v3)
		w.u8(0x0c, 7, 8)  // def_cfa rsp+8
		w.u8(0x90, 1)     // offset r16 at CFA-8
	})
	entry64(func() {
		w.u64(0)        // CIE pointer: section offset 0
		w.u64(0x401000) // initial_location
		w.u64(0x20)     // address_range
		w.u8(0x41)      // advance_loc 1
		w.u8(0x0e, 16)  // def_cfa_offset 16
		w.u8(0x86, 2)   // offset rbp at CFA-16
		w.u8(0x01)      // set_loc 0x401010
		w.u64(0x401010)
		w.u8(0x0d, 6) // def_cfa_register rbp
	})
	tab, err := NewDebugFrame(w.b, 0, binary.LittleEndian, 8)
	if err != nil {
		t.Fatal(err)
	}
	fdes, err := tab.FDEs()
	if err != nil || len(fdes) != 1 {
		t.Fatalf("FDEs: %v %v", fdes, err)
	}
	f := fdes[0]
	if f.CIE.Version != 4 || f.CIE.AddrSize != 8 || f.Begin != 0x401000 || f.End != 0x401020 {
		t.Fatalf("FDE %+v CIE %+v", f, f.CIE)
	}
	rows, err := f.Rows()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0x401000: cfa=rsp+8 rip=c-8",
		"0x401001: cfa=rsp+16 rbp=c-16 rip=c-8",
		"0x401010: cfa=rbp+16 rbp=c-16 rip=c-8",
	}
	for i, r := range rows {
		if i >= len(want) || FormatRow(r, x86RegName, 16) != want[i] {
			t.Errorf("row %d = %s", i, FormatRow(r, x86RegName, 16))
		}
	}
	if len(rows) != len(want) {
		t.Errorf("%d rows, want %d", len(rows), len(want))
	}
	if g, err := tab.FDEForPC(0x401010); err != nil || g.Offset != f.Offset {
		t.Errorf("FDEForPC: %v %v", g, err)
	}
}

// Every DW_CFA operation the interpreter knows, in one synthetic FDE, with
// the rule each one must produce.
func TestAllCFAOperations(t *testing.T) {
	w := &builder{order: binary.LittleEndian}
	w.entry32(8, func() {
		w.u32(0)
		w.u8(3)          // version 3
		w.str("zR")      //
		w.u8(1, 0x78)    // code align 1, data align -8
		w.u8(16)         // ra column (ULEB)
		w.u8(1, 0x03)    // aug data: FDE encoding udata4 absolute
		w.u8(0x0c, 7, 8) // def_cfa rsp+8
		w.u8(0x90, 1)    // rip at CFA-8
		w.u8(0x08, 3)    // rbx same value
	})
	w.entry32(8, func() {
		w.u32(uint32(len(w.b)))
		w.u32(0x1000)
		w.u32(0x100)
		w.u8(0)
		w.u8(0x05, 3, 2)                   // offset_extended rbx, 2 -> c-16
		w.u8(0x11, 12, 0x7d)               // offset_extended_sf r12, -3 -> c+24
		w.u8(0x2f, 13, 1)                  // GNU_negative_offset_extended r13, 1 -> c+8
		w.u8(0x14, 14, 2)                  // val_offset r14, 2 -> v-16
		w.u8(0x15, 15, 0x7f)               // val_offset_sf r15, -1 -> v+8
		w.u8(0x07, 0)                      // undefined rax
		w.u8(0x09, 1, 2)                   // register rdx in rcx
		w.u8(0x10, 4, 2, 0x77, 0x10)       // expression rsi: breg7 +16
		w.u8(0x16, 5, 1, 0x31)             // val_expression rdi: lit1
		w.u8(0x2e, 32)                     // GNU_args_size 32 (ignored)
		w.u8(0x2d)                         // GNU_window_save
		w.u8(0x12, 6, 0x7e)                // def_cfa_sf rbp, -2 -> rbp+16
		w.u8(0x03, 0x10, 0x00)             // advance_loc2 16
		w.u8(0x13, 0x7c)                   // def_cfa_offset_sf -4 -> +32
		w.u8(0x06, 3)                      // restore_extended rbx -> same value (CIE)
		w.u8(0x04, 0x10, 0, 0, 0)          // advance_loc4 16
		w.u8(0x0f, 2, 0x77, 0x08)          // def_cfa_expression breg7 +8
		w.u8(0x1d, 8, 0, 0, 0, 0, 0, 0, 0) // MIPS_advance_loc8 8
		w.u8(0x0c, 7, 8)                   // def_cfa rsp+8
	})
	tab, _ := NewEHFrame(w.b, 0x5000, nil, 0, binary.LittleEndian, 8)
	f, err := tab.FDEForPC(0x1000)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := f.Rows()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0x1000: cfa=rbp+16 rax=u rdx=rcx rbx=c-16 rsi=exp rdi=vexp r12=c+24 r13=c+8 r14=v-16 r15=v+8 rip=c-8 window_save",
		"0x1010: cfa=rbp+32 rax=u rdx=rcx rbx=s rsi=exp rdi=vexp r12=c+24 r13=c+8 r14=v-16 r15=v+8 rip=c-8 window_save",
		"0x1020: cfa=exp rax=u rdx=rcx rbx=s rsi=exp rdi=vexp r12=c+24 r13=c+8 r14=v-16 r15=v+8 rip=c-8 window_save",
		"0x1028: cfa=rsp+8 rax=u rdx=rcx rbx=s rsi=exp rdi=vexp r12=c+24 r13=c+8 r14=v-16 r15=v+8 rip=c-8 window_save",
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		if s := FormatRow(r, x86RegName, 16); s != want[i] {
			t.Errorf("row %d:\n got %s\nwant %s", i, s, want[i])
		}
	}
	if e := rows[0].Rule(4).Expr; string(e) != "\x77\x10" {
		t.Errorf("rsi expression % x", e)
	}
	if e := rows[2].CFA.Expr; string(e) != "\x77\x08" {
		t.Errorf("CFA expression % x", e)
	}
}

// A crafted FDE that names register 4095 and then repeats remember_state
// (or one-byte advances) tens of thousands of times must be refused
// rather than copy gigabytes of rules.
func TestCopyBudget(t *testing.T) {
	for _, tc := range []struct {
		name string
		pair []byte
	}{
		{"remember_state", []byte{0x0a, 0x0b}}, // remember_state, restore_state
		{"advance", []byte{0x41, 0x41}},        // advance_loc 1, twice
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &builder{order: binary.LittleEndian}
			w.entry32(4, func() {
				w.u32(0)
				w.u8(3)
				w.str("")
				w.u8(1, 0x78, 16)
				w.u8(0x07, 0xff, 0x1f) // undefined r4095
			})
			w.entry32(4, func() {
				w.u32(uint32(len(w.b)))
				w.u64(0x1000) // absptr, 8 bytes
				w.u64(0x100000)
				for i := 0; i < 30000; i++ {
					w.u8(tc.pair...)
				}
			})
			tab, _ := NewEHFrame(w.b, 0, nil, 0, binary.LittleEndian, 8)
			f, err := tab.FDEForPC(0x1000)
			if err != nil {
				t.Fatal(err)
			}
			_, rowsErr := f.Rows()
			_, rowErr := f.RowAt(f.End - 1)
			if rowsErr == nil {
				t.Errorf("Rows: no error")
			}
			if tc.name == "remember_state" && rowErr == nil {
				t.Errorf("RowAt: no error")
			}
		})
	}
}

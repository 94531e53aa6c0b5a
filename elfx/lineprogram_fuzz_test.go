package elfx

import (
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

// FuzzLineProgram decodes arbitrary line programs with lineProgram and,
// where it decodes them, holds its rows to debug/dwarf's LineReader's
// over the same bytes (one DWARF 4 unit whose DW_AT_stmt_list is 0).
// Nothing may panic or hang; what lineProgram refuses it must say so.
func FuzzLineProgram(f *testing.F) {
	// Rows: set_address 0x1000, advance_line 9, copy, special opcodes,
	// set_file 2, set_column 7, const_add_pc, fixed_advance_pc,
	// negate_stmt, set_discriminator, end_sequence.
	ops := []byte{0, 9, 2, 0, 0x10, 0, 0, 0, 0, 0, 0, 3, 9, 1, 0x4b, 0x83, 4, 2, 5, 7, 8, 9, 4, 0, 6, 0, 2, 4, 3, 0x20, 0, 1, 1}
	f.Add(craftedLineProgram(4, ops))
	f.Add(craftedLineProgram(3, ops))
	f.Add(craftedLineProgram(2, ops[:20]))
	f.Add(craftedLineProgram(4, []byte{0, 5, 3, 'b', 0, 0, 0, 1}))
	f.Fuzz(func(t *testing.T, line []byte) {
		p, err := newLineProgram(line, 0, binary.LittleEndian, 8)
		if err != nil {
			if !errors.Is(err, errLineRefused) {
				t.Fatalf("header: %v", err)
			}
			return
		}
		var got []lineState
		s := lineStart(0)
		for {
			ok, err := p.next(&s)
			if err != nil {
				if !errors.Is(err, errLineRefused) {
					t.Fatalf("row %d: %v", len(got), err)
				}
				return // left to LineReader
			}
			if !ok {
				break
			}
			got = append(got, s)
		}
		lr := fuzzLineReader(t, line)
		if lr == nil {
			return // LineReader refuses the header (or panics on it)
		}
		var le dwarf.LineEntry
		for i, row := range got {
			if err := lr.Next(&le); err != nil {
				t.Fatalf("row %d: LineReader: %v, lineProgram decoded %+v", i, err, row)
			}
			files := lr.Files()
			var file *dwarf.LineFile
			if row.file < len(files) {
				file = files[row.file]
			}
			if row.addr != le.Address || row.end != le.EndSequence || row.line != le.Line || row.col != le.Column || file != le.File {
				t.Fatalf("row %d: lineProgram %+v, LineReader %+v", i, row, le)
			}
		}
		if err := lr.Next(&le); err != io.EOF {
			t.Fatalf("LineReader reads on past lineProgram's %d rows: %v %+v", len(got), err, le)
		}
	})
}

// fuzzLineReader is debug/dwarf's LineReader over line, through one
// DWARF 4 compile unit whose DW_AT_stmt_list is 0; nil where it refuses
// or panics.
func fuzzLineReader(t *testing.T, line []byte) (lr *dwarf.LineReader) {
	defer func() {
		if recover() != nil {
			lr = nil
		}
	}()
	// Abbreviation 1: DW_TAG_compile_unit, no children,
	// DW_AT_stmt_list DW_FORM_sec_offset.
	abbrev := []byte{1, 0x11, 0, 0x10, 0x17, 0, 0, 0}
	info := binary.LittleEndian.AppendUint32(nil, 12)
	info = binary.LittleEndian.AppendUint16(info, 4)
	info = binary.LittleEndian.AppendUint32(info, 0)
	info = append(info, 8, 1, 0, 0, 0, 0)
	d, err := dwarf.New(abbrev, nil, nil, info, line, nil, nil, nil)
	if err != nil {
		t.Fatalf("crafted unit: %v", err)
	}
	e, err := d.Reader().Next()
	if err != nil || e == nil {
		t.Fatalf("crafted unit: %v", err)
	}
	lr, err = d.LineReader(e)
	if err != nil {
		return nil
	}
	return lr
}

package elfx

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestLineProgramMatchesLineReader decodes every unit's line program of
// real programs with lineProgram and with debug/dwarf's LineReader and
// holds them to the same rows: glibc's (libc6-dbg: DWARF 5, hundreds of
// assembler units), a C++ LTO program, the same processed by dwz, a Rust
// program and a Go program (DWARF 4 line tables). lineProgram must
// refuse none of them; a copy of its state at any row decodes on as the
// whole decode does (lookups start at marks).
func TestLineProgramMatchesLineReader(t *testing.T) {
	progs := map[string]func(t *testing.T) *Object{
		"libc": func(t *testing.T) *Object { return libcWithDebug(t).dwarfSource() },
		"lto":  func(t *testing.T) *Object { return mustOpen(t, buildManyFunctions(t, 400, "-O2", "-g", "-flto")) },
		"dwz": func(t *testing.T) *Object {
			exe := buildManyFunctions(t, 400, "-O2", "-g", "-flto")
			run(t, filepath.Dir(exe), testenv.NeedTool(t, "dwz"), exe)
			return mustOpen(t, exe)
		},
		"rust": func(t *testing.T) *Object {
			return mustOpen(t, compile(t, t.TempDir(), "rustc", "prog", "rs", rustProgram, "-g", "-C", "opt-level=1"))
		},
		"go": func(t *testing.T) *Object {
			goTool := testenv.NeedTool(t, "go")
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "main.go"), []byte(goProgram), 0o644)
			os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module prog\n\ngo 1.21\n"), 0o644)
			bin := filepath.Join(dir, "prog")
			run(t, dir, goTool, "build", "-o", bin, ".")
			return mustOpen(t, bin)
		},
	}
	for name, open := range progs {
		t.Run(name, func(t *testing.T) {
			o := open(t)
			d, err := o.loadDWARF()
			if err != nil {
				t.Fatal(err)
			}
			sec, err := o.sectionsData([]string{".debug_line"})
			if err != nil {
				t.Fatal(err)
			}
			addrSize := 8
			if o.ef.Class == elf.ELFCLASS32 {
				addrSize = 4
			}
			units, rows := 0, 0
			r := d.Reader()
			for {
				e, err := r.Next()
				if err != nil {
					t.Fatal(err)
				}
				if e == nil {
					break
				}
				r.SkipChildren()
				off, ok := e.Val(dwarf.AttrStmtList).(int64)
				if !ok {
					continue
				}
				lr, err := d.LineReader(e)
				if err != nil || lr == nil {
					t.Fatalf("unit %#x: LineReader: %v", e.Offset, err)
				}
				p, err := newLineProgram(sec[0], uint64(off), o.ef.ByteOrder, addrSize)
				if err != nil {
					t.Fatalf("unit %#x: line program header refused: %v", e.Offset, err)
				}
				units++
				rows += sameLineRows(t, lr, p)
			}
			t.Logf("%d units, %d rows", units, rows)
			if units == 0 || rows < 1000 {
				t.Fatalf("%d units, %d rows: the test proves nothing", units, rows)
			}
		})
	}
}

// sameLineRows walks lr and p side by side, failing t at the first row
// they disagree on; it returns how many rows they read.
func sameLineRows(t *testing.T, lr *dwarf.LineReader, p *lineProgram) int {
	t.Helper()
	s := lineStart(0)
	var le dwarf.LineEntry
	n := 0
	for ; ; n++ {
		at := s
		lerr := lr.Next(&le)
		ok, err := p.next(&s)
		row, end := s, s.end
		if err != nil {
			t.Fatalf("row %d: lineProgram: %v (LineReader: %v)", n, err, lerr)
		}
		if lerr == io.EOF || !ok {
			if lerr != io.EOF || ok {
				t.Fatalf("row %d: LineReader ends: %v, lineProgram ends: %v", n, lerr == io.EOF, !ok)
			}
			return n
		}
		if lerr != nil {
			t.Fatalf("row %d: LineReader: %v", n, lerr)
		}
		files := lr.Files()
		var file *dwarf.LineFile
		if row.file < len(files) {
			file = files[row.file]
		}
		if row.addr != le.Address || end != le.EndSequence || row.line != le.Line || row.col != le.Column || file != le.File {
			t.Fatalf("row %d: lineProgram %#x end=%v %d:%d file %v, LineReader %#x end=%v %d:%d file %v",
				n, row.addr, end, row.line, row.col, file, le.Address, le.EndSequence, le.Line, le.Column, le.File)
		}
		if n%97 == 0 { // decoding again from a copy of the state
			if _, err := p.next(&at); err != nil || at != row {
				t.Fatalf("row %d decoded again from its mark: %+v (%v), first %+v", n, at, err, row)
			}
		}
	}
}

// TestLineProgramRefuses: what lineProgram leaves to LineReader (a file
// table DW_LNE_define_file extends, truncated operands, bad headers) is
// refused, not decoded some other way.
func TestLineProgramRefuses(t *testing.T) {
	for name, ops := range map[string][]byte{
		"define_file":      {0, 5, 3, 'a', 0, 0, 0},
		"truncated uleb":   {2, 0x80},
		"ext too long":     {0, 9, 2, 1},
		"set_address size": {0, 5, 2, 1, 2, 3, 4},
	} {
		b := craftedLineProgram(4, ops)
		p, err := newLineProgram(b, 0, binary.LittleEndian, 8)
		if err != nil {
			t.Fatalf("%s: header refused: %v", name, err)
		}
		s := lineStart(0)
		var lastErr error
		for i := 0; i < 10; i++ {
			if ok, err := p.next(&s); err != nil || !ok {
				lastErr = err
				break
			}
		}
		if !errors.Is(lastErr, errLineRefused) {
			t.Errorf("%s: not refused (%v)", name, lastErr)
		}
	}
	for name, b := range map[string][]byte{
		"empty":        {},
		"version 6":    func() []byte { b := craftedLineProgram(4, nil); b[4] = 6; return b }(),
		"length":       craftedLineProgram(4, nil)[:20],
		"line_range 0": func() []byte { b := craftedLineProgram(4, nil); b[14] = 0; return b }(),
	} {
		if _, err := newLineProgram(b, 0, binary.LittleEndian, 8); err == nil {
			t.Errorf("%s: header accepted", name)
		}
	}
}

// craftedLineProgram is a DWARF 2-4 line program (32-bit, little
// endian, minimum instruction length 1, line_base -5, line_range 14,
// opcode_base 13) with one file, a.c, and the given opcodes.
func craftedLineProgram(version uint16, ops []byte) []byte {
	var hdr []byte
	hdr = append(hdr, 1) // minimum_instruction_length
	if version >= 4 {
		hdr = append(hdr, 1) // maximum_operations_per_instruction
	}
	hdr = append(hdr, 1, 0xfb, 14, 13) // default_is_stmt, line_base, line_range, opcode_base
	hdr = append(hdr, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1)
	hdr = append(hdr, 0)                            // no include directories
	hdr = append(hdr, 'a', '.', 'c', 0, 0, 0, 0, 0) // a.c, dir 0, no time, no size; end
	body := binary.LittleEndian.AppendUint16(nil, version)
	body = binary.LittleEndian.AppendUint32(body, uint32(len(hdr)))
	body = append(append(body, hdr...), ops...)
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// TestLazyUnitsDecodeWithLineProgram: a lazy index's units read their
// line programs with lineProgram, not LineReader (the decoder would
// otherwise be bypassed without any answer changing), and its rows name
// the lines a lookup wants.
func TestLazyUnitsDecodeWithLineProgram(t *testing.T) {
	exe := buildManyFunctions(t, 50, "-O2", "-g")
	o := mustOpen(t, exe)
	x, err := o.newLazyDWARFIndex()
	if err != nil || x == nil {
		t.Fatalf("lazy index of %s: %v, %v", exe, x, err)
	}
	lines := 0
	for _, a := range instructionAddrs(t, exe, func(string) bool { return true }) {
		frames, err := x.sourceFrames(a, o)
		if err != nil {
			t.Fatalf("%#x: %v", a, err)
		}
		for _, f := range frames {
			if f.Line > 0 && strings.HasSuffix(f.File, "big.cc") {
				lines++
			}
		}
	}
	if lines == 0 {
		t.Fatal("no frame with a line of big.cc")
	}
	x.lazy.unitsMu.Lock()
	defer x.lazy.unitsMu.Unlock()
	decoded := 0
	for _, cu := range x.lazy.units {
		if len(cu.seqs) == 0 {
			continue
		}
		if cu.prog == nil {
			t.Errorf("unit %#x: line program read with LineReader", cu.off)
		}
		decoded++
	}
	if decoded == 0 {
		t.Error("no unit's line program read")
	}
}

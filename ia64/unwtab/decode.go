package unwtab

import (
	"fmt"
)

// Format is a descriptor record format of the unwind byte code.
type Format uint8

const (
	R1 Format = iota + 1
	R2
	R3
	P1
	P2
	P3
	P4
	P5
	P6
	P7
	P8
	P9
	P10
	B1
	B2
	B3
	B4
	X1
	X2
	X3
	X4
)

var formatNames = [...]string{"?", "R1", "R2", "R3", "P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9", "P10", "B1", "B2", "B3", "B4", "X1", "X2", "X3", "X4"}

func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", f)
}

// Op is what a descriptor record says.
type Op uint8

const (
	OpPrologue       Op = iota + 1 // R1/R3 prologue region
	OpBody                         // R1/R3 body region
	OpPrologueGR                   // R2: prologue with Mask saved from GR
	OpBrMem                        // P1: Mask = b1..b5 spilled to memory
	OpBrGR                         // P2: Mask = b1..b5 saved from GR
	OpRegGR                        // P3: Reg saved in GR
	OpRpBR                         // P3: return pointer in branch register GR (a BR number)
	OpSpillMask                    // P4: IMask
	OpFrGrMem                      // P5: GRMask r4..r7, FRMask f2..f5,f16..f31
	OpFrMem                        // P6: FRMask (f2..f5)
	OpGrMem                        // P6: GRMask (r4..r7)
	OpMemStackF                    // P7: fixed frame of 16*Size bytes at T
	OpMemStackV                    // P7: variable frame at T
	OpSpillBase                    // P7: spill base psp+16-4*Off
	OpRegWhen                      // P7/P8: Reg saved at T
	OpRegSprel                     // P7/P8: Reg saved at sp+4*Off
	OpRegPsprel                    // P7/P8: Reg saved at psp+16-4*Off
	OpPriunatWhenGR                // P8
	OpPriunatWhenMem               // P8
	OpGrGR                         // P9: GRMask saved from GR
	OpUnwabi                       // P10
	OpLabelState                   // B1/B4
	OpCopyState                    // B1/B4
	OpEpilogue                     // B2/B3
	OpSpillSprel                   // X1/X3
	OpSpillPsprel                  // X1/X3
	OpSpillReg                     // X2/X4
	OpRestore                      // X2/X4
)

// UnwReg names the special registers that P3/P7/P8 records describe.
type UnwReg uint8

const (
	RegPSP UnwReg = iota + 1
	RegRP
	RegPFS
	RegPR
	RegUNAT
	RegLC
	RegRNAT
	RegBSP
	RegBSPSTORE
	RegFPSR
	RegPRIUNAT
)

var unwRegNames = [...]string{"?", "psp", "rp", "pfs", "pr", "unat", "lc", "rnat", "bsp", "bspstore", "fpsr", "priunat"}

func (r UnwReg) String() string {
	if int(r) < len(unwRegNames) {
		return unwRegNames[r]
	}
	return fmt.Sprintf("UnwReg(%d)", r)
}

// Record is one decoded descriptor. Values are kept as encoded (Off in
// 4-byte units, Size in 16-byte units); the meaning of each field
// depends on Op.
type Record struct {
	Format Format
	Op     Op
	Reg    UnwReg // P3, P7, P8
	Rlen   uint64 // region headers
	T      uint64 // time (slot) of P7/P8/B2/B3/X records
	Off    uint64 // sprel/psprel/spill_base offset in 4-byte units
	Size   uint64 // mem_stack_f size in 16-byte units
	Mask   uint8  // R2 save mask; P1/P2 brmask; P5/P6/P9 grmask
	FRMask uint32 // P5/P6
	GR     uint8  // R2 grsave; P2/P3/P9 register
	ABReg  uint8  // X records
	X      uint8  // X2/X4 target class bit
	YTReg  uint8  // X2/X4 y bit and target register
	QP     uint8  // X3/X4 predicate
	Label  uint64 // B1/B4
	ECount uint64 // B2/B3
	ABI    uint8  // P10
	Ctx    uint8  // P10
	IMask  []byte // P4, 2 bits per slot of the region
	// RegionRlen is the length of the region a P4 belongs to: how many
	// slots IMask describes.
	RegionRlen uint64
	// Off0 is the record's offset in the descriptor area.
	Off0 int
}

// DecodeError reports bad descriptor bytes: where and what.
type DecodeError struct {
	Off int
	Msg string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("ia64 unwind descriptors: offset %#x: %s", e.Off, e.Msg)
}

// decoder walks a descriptor area.
type decoder struct {
	b    []byte
	pos  int
	body bool
	rlen uint64
}

func (d *decoder) byte1() (byte, error) {
	if d.pos >= len(d.b) {
		return 0, &DecodeError{d.pos, "truncated record"}
	}
	c := d.b[d.pos]
	d.pos++
	return c, nil
}

func (d *decoder) uleb() (uint64, error) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		c, err := d.byte1()
		if err != nil {
			return 0, err
		}
		if shift >= 64 || (shift == 63 && c&0x7e != 0) {
			return 0, &DecodeError{d.pos - 1, "ULEB128 value overflows 64 bits"}
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, nil
		}
	}
}

// Decode decodes a descriptor area into records, in order. It stops at
// the first bad or truncated record and returns the records before it
// with the error. Dispatch follows binutils (readelf -u): the meaning of
// a first byte depends on whether the last region header was a prologue
// or a body.
func Decode(desc []byte) ([]Record, error) {
	d := &decoder{b: desc}
	var out []Record
	for d.pos < len(d.b) {
		start := d.pos
		r, err := d.next()
		if err != nil {
			return out, err
		}
		r.Off0 = start
		out = append(out, r)
	}
	return out, nil
}

func (d *decoder) next() (Record, error) {
	code, err := d.byte1()
	if err != nil {
		return Record{}, err
	}
	switch code >> 5 {
	case 0, 1:
		return d.region(R1, code&0x20 != 0, uint64(code&0x1f)), nil
	case 2:
		b1, err := d.byte1()
		if err != nil {
			return Record{}, err
		}
		rlen, err := d.uleb()
		if err != nil {
			return Record{}, err
		}
		d.body, d.rlen = false, rlen
		return Record{Format: R2, Op: OpPrologueGR, Mask: (code&7)<<1 | b1>>7, GR: b1 & 0x7f, Rlen: rlen}, nil
	case 3:
		rlen, err := d.uleb()
		if err != nil {
			return Record{}, err
		}
		return d.region(R3, code&3 == 1, rlen), nil
	}
	if d.body {
		return d.bodyRecord(code)
	}
	return d.prologueRecord(code)
}

func (d *decoder) region(f Format, body bool, rlen uint64) Record {
	d.body, d.rlen = body, rlen
	op := OpPrologue
	if body {
		op = OpBody
	}
	return Record{Format: f, Op: op, Rlen: rlen}
}

func (d *decoder) bad(code byte) error {
	return &DecodeError{d.pos - 1, fmt.Sprintf("unknown descriptor code %#02x", code)}
}

// p3Regs and p8 tables map the r fields of P3 and P8 to registers.
var p3Regs = [...]UnwReg{RegPSP, RegRP, RegPFS, RegPR, RegUNAT, RegLC, 0, RegRNAT, RegBSP, RegBSPSTORE, RegFPSR, RegPRIUNAT}

// p7Ops: r = 0..15 of P7 (0 and 1 handled apart).
var p7Ops = [16]struct {
	op  Op
	reg UnwReg
}{
	2: {OpSpillBase, 0}, 3: {OpRegSprel, RegPSP},
	4: {OpRegWhen, RegRP}, 5: {OpRegPsprel, RegRP},
	6: {OpRegWhen, RegPFS}, 7: {OpRegPsprel, RegPFS},
	8: {OpRegWhen, RegPR}, 9: {OpRegPsprel, RegPR},
	10: {OpRegWhen, RegLC}, 11: {OpRegPsprel, RegLC},
	12: {OpRegWhen, RegUNAT}, 13: {OpRegPsprel, RegUNAT},
	14: {OpRegWhen, RegFPSR}, 15: {OpRegPsprel, RegFPSR},
}

var p8Ops = [20]struct {
	op  Op
	reg UnwReg
}{
	1: {OpRegSprel, RegRP}, 2: {OpRegSprel, RegPFS}, 3: {OpRegSprel, RegPR},
	4: {OpRegSprel, RegLC}, 5: {OpRegSprel, RegUNAT}, 6: {OpRegSprel, RegFPSR},
	7: {OpRegWhen, RegBSP}, 8: {OpRegPsprel, RegBSP}, 9: {OpRegSprel, RegBSP},
	10: {OpRegWhen, RegBSPSTORE}, 11: {OpRegPsprel, RegBSPSTORE}, 12: {OpRegSprel, RegBSPSTORE},
	13: {OpRegWhen, RegRNAT}, 14: {OpRegPsprel, RegRNAT}, 15: {OpRegSprel, RegRNAT},
	16: {OpPriunatWhenGR, RegPRIUNAT}, 17: {OpRegPsprel, RegPRIUNAT}, 18: {OpRegSprel, RegPRIUNAT},
	19: {OpPriunatWhenMem, RegPRIUNAT},
}

func (d *decoder) prologueRecord(code byte) (Record, error) {
	switch code >> 5 {
	case 4: // P1
		return Record{Format: P1, Op: OpBrMem, Mask: code & 0x1f}, nil
	case 5:
		switch {
		case code&0x10 == 0: // P2
			b1, err := d.byte1()
			if err != nil {
				return Record{}, err
			}
			return Record{Format: P2, Op: OpBrGR, Mask: (code&0xf)<<1 | b1>>7, GR: b1 & 0x7f}, nil
		case code&0x08 == 0: // P3
			b1, err := d.byte1()
			if err != nil {
				return Record{}, err
			}
			r := (code&7)<<1 | b1>>7
			if r == 6 {
				return Record{Format: P3, Op: OpRpBR, Reg: RegRP, GR: b1 & 0x7f}, nil
			}
			if int(r) >= len(p3Regs) {
				return Record{}, &DecodeError{d.pos - 2, fmt.Sprintf("P3 with unknown register r=%d", r)}
			}
			return Record{Format: P3, Op: OpRegGR, Reg: p3Regs[r], GR: b1 & 0x7f}, nil
		case code&7 == 0: // P4
			n := (d.rlen + 3) / 4
			if n > uint64(len(d.b)-d.pos) {
				return Record{}, &DecodeError{d.pos - 1, fmt.Sprintf("P4 spill mask of %d bytes (region of %d slots) runs past the descriptors", n, d.rlen)}
			}
			m := d.b[d.pos : d.pos+int(n)]
			d.pos += int(n)
			return Record{Format: P4, Op: OpSpillMask, IMask: m, RegionRlen: d.rlen}, nil
		case code&7 == 1: // P5
			if len(d.b)-d.pos < 3 {
				d.pos = len(d.b)
				return Record{}, &DecodeError{d.pos, "truncated P5 record"}
			}
			b1, b2, b3 := d.b[d.pos], d.b[d.pos+1], d.b[d.pos+2]
			d.pos += 3
			return Record{Format: P5, Op: OpFrGrMem, Mask: b1 >> 4, FRMask: uint32(b1&0xf)<<16 | uint32(b2)<<8 | uint32(b3)}, nil
		}
		return Record{}, d.bad(code)
	case 6: // P6
		if code&0x10 != 0 {
			return Record{Format: P6, Op: OpGrMem, Mask: code & 0xf}, nil
		}
		return Record{Format: P6, Op: OpFrMem, FRMask: uint32(code & 0xf)}, nil
	}
	// 0xE0..0xFF
	if code&0x10 == 0 { // P7
		r := code & 0xf
		t, err := d.uleb()
		if err != nil {
			return Record{}, err
		}
		switch r {
		case 0:
			size, err := d.uleb()
			if err != nil {
				return Record{}, err
			}
			return Record{Format: P7, Op: OpMemStackF, T: t, Size: size}, nil
		case 1:
			return Record{Format: P7, Op: OpMemStackV, T: t}, nil
		}
		o := p7Ops[r]
		rec := Record{Format: P7, Op: o.op, Reg: o.reg}
		if o.op == OpRegWhen {
			rec.T = t
		} else {
			rec.Off = t
		}
		return rec, nil
	}
	switch code & 0xf {
	case 0: // P8
		r, err := d.byte1()
		if err != nil {
			return Record{}, err
		}
		v, err := d.uleb()
		if err != nil {
			return Record{}, err
		}
		if int(r) >= len(p8Ops) || p8Ops[r].op == 0 {
			return Record{}, &DecodeError{d.pos, fmt.Sprintf("P8 with unknown r=%d", r)}
		}
		o := p8Ops[r]
		rec := Record{Format: P8, Op: o.op, Reg: o.reg}
		switch o.op {
		case OpRegWhen, OpPriunatWhenGR, OpPriunatWhenMem:
			rec.T = v
		default:
			rec.Off = v
		}
		return rec, nil
	case 1: // P9
		b1, err := d.byte1()
		if err != nil {
			return Record{}, err
		}
		b2, err := d.byte1()
		if err != nil {
			return Record{}, err
		}
		return Record{Format: P9, Op: OpGrGR, Mask: b1 & 0xf, GR: b2 & 0x7f}, nil
	case 0xf: // P10
		b1, err := d.byte1()
		if err != nil {
			return Record{}, err
		}
		b2, err := d.byte1()
		if err != nil {
			return Record{}, err
		}
		return Record{Format: P10, Op: OpUnwabi, ABI: b1, Ctx: b2}, nil
	case 9, 0xa, 0xb, 0xc:
		return d.xRecord(code & 7)
	}
	return Record{}, d.bad(code)
}

func (d *decoder) bodyRecord(code byte) (Record, error) {
	switch code >> 5 {
	case 4, 5: // B1
		op := OpLabelState
		if code&0x20 != 0 {
			op = OpCopyState
		}
		return Record{Format: B1, Op: op, Label: uint64(code & 0x1f)}, nil
	case 6: // B2
		t, err := d.uleb()
		if err != nil {
			return Record{}, err
		}
		return Record{Format: B2, Op: OpEpilogue, T: t, ECount: uint64(code & 0x1f)}, nil
	}
	switch {
	case code&0x10 == 0: // B3
		t, err := d.uleb()
		if err != nil {
			return Record{}, err
		}
		ec, err := d.uleb()
		if err != nil {
			return Record{}, err
		}
		return Record{Format: B3, Op: OpEpilogue, T: t, ECount: ec}, nil
	case code&7 == 0: // B4
		l, err := d.uleb()
		if err != nil {
			return Record{}, err
		}
		op := OpLabelState
		if code&8 != 0 {
			op = OpCopyState
		}
		return Record{Format: B4, Op: op, Label: l}, nil
	case code&7 >= 1 && code&7 <= 4:
		return d.xRecord(code & 7)
	}
	return Record{}, d.bad(code)
}

// xRecord decodes X1..X4 (n = 1..4); the code byte is consumed.
func (d *decoder) xRecord(n byte) (Record, error) {
	var hdr [3]byte
	nb := [5]int{0, 1, 2, 2, 3}[n]
	for i := 0; i < nb; i++ {
		c, err := d.byte1()
		if err != nil {
			return Record{}, err
		}
		hdr[i] = c
	}
	t, err := d.uleb()
	if err != nil {
		return Record{}, err
	}
	switch n {
	case 1:
		off, err := d.uleb()
		if err != nil {
			return Record{}, err
		}
		op := OpSpillPsprel
		if hdr[0]&0x80 != 0 {
			op = OpSpillSprel
		}
		return Record{Format: X1, Op: op, ABReg: hdr[0] & 0x7f, T: t, Off: off}, nil
	case 2:
		r := Record{Format: X2, Op: OpSpillReg, ABReg: hdr[0] & 0x7f, X: hdr[0] >> 7, YTReg: hdr[1], T: t}
		if r.X == 0 && r.YTReg == 0 {
			r.Op = OpRestore
		}
		return r, nil
	case 3:
		off, err := d.uleb()
		if err != nil {
			return Record{}, err
		}
		op := OpSpillPsprel
		if hdr[0]&0x80 != 0 {
			op = OpSpillSprel
		}
		return Record{Format: X3, Op: op, QP: hdr[0] & 0x3f, ABReg: hdr[1] & 0x7f, T: t, Off: off}, nil
	}
	r := Record{Format: X4, Op: OpSpillReg, QP: hdr[0] & 0x3f, ABReg: hdr[1] & 0x7f, X: hdr[1] >> 7, YTReg: hdr[2], T: t}
	if r.X == 0 && r.YTReg == 0 {
		r.Op = OpRestore
	}
	return r, nil
}

// TrimPadding drops the trailing zero bytes of a descriptor area, which
// decode as "R1 prologue, rlen 0" records, and says how many there were.
func TrimPadding(recs []Record) ([]Record, int) {
	n := len(recs)
	for n > 0 && recs[n-1].Format == R1 && recs[n-1].Op == OpPrologue && recs[n-1].Rlen == 0 {
		n--
	}
	return recs[:n], len(recs) - n
}

package exidx

import (
	"fmt"
	"strconv"
	"strings"
)

// OpKind is what an unwind opcode does (EHABI §9.3).
type OpKind uint8

const (
	OpVSPAdd      OpKind = iota + 1 // vsp += Value
	OpVSPSub                        // vsp -= Value
	OpRefuse                        // 0x80 0x00: refuse to unwind
	OpPopMask                       // pop the core registers in Mask (r0–r15)
	OpVSPReg                        // vsp = r[Reg]
	OpFinish                        // 0xb0: finish (set pc from lr if not popped)
	OpPopVFPX                       // pop D[First]–D[First+Count-1], FSTMFDX layout (one extra pad word)
	OpPopVFPD                       // pop D[First]–D[First+Count-1], FSTMFDD layout
	OpPopWR                         // pop iWMMXt wR[First]–wR[First+Count-1]
	OpPopWCGR                       // pop iWMMXt wCGR registers in Mask
	OpPopRAAuth                     // 0xb4: pop the return address authentication code (PACBTI)
	OpReserved                      // 0x9d, 0x9f: reserved prefixes
	OpSpare                         // spare encodings
	OpUnsupported                   // encodings readelf calls unsupported
	OpTruncated                     // the data ended inside a multi-byte opcode
)

// Op is one decoded unwind opcode.
type Op struct {
	Kind  OpKind
	Bytes []byte // the opcode's encoding (a slice of the decoded data)
	Value uint32 // OpVSPAdd, OpVSPSub: the byte count
	Mask  uint16 // OpPopMask: bit n is rn; OpPopWCGR: bit n is wCGRn
	Reg   uint8  // OpVSPReg
	First uint8  // OpPopVFPX, OpPopVFPD, OpPopWR
	Count uint8  // OpPopVFPX, OpPopVFPD, OpPopWR
}

// maxULEB bounds the bytes of 0xb2's ULEB128 operand: more than five
// cannot describe a 32-bit offset.
const maxULEB = 5

// Decode splits unwind data into opcodes. Decoding never fails: unknown
// encodings become OpSpare/OpUnsupported/OpReserved ops, and data ending
// inside an opcode an OpTruncated op. It returns at most len(code) ops.
func Decode(code []byte) []Op {
	var ops []Op
	for i := 0; i < len(code); {
		op, n := decodeOne(code[i:])
		op.Bytes = code[i : i+n]
		ops = append(ops, op)
		i += n
	}
	return ops
}

// decodeOne decodes the opcode at the start of b (len(b) > 0) and says
// how many bytes it took.
func decodeOne(b []byte) (Op, int) {
	op := b[0]
	second := func() (byte, bool) {
		if len(b) < 2 {
			return 0, false
		}
		return b[1], true
	}
	switch {
	case op&0xc0 == 0x00:
		return Op{Kind: OpVSPAdd, Value: uint32(op&0x3f)<<2 + 4}, 1
	case op&0xc0 == 0x40:
		return Op{Kind: OpVSPSub, Value: uint32(op&0x3f)<<2 + 4}, 1
	case op&0xf0 == 0x80:
		x, ok := second()
		if !ok {
			return Op{Kind: OpTruncated}, 1
		}
		mask := uint16(op&0x0f)<<8 | uint16(x)
		if mask == 0 {
			return Op{Kind: OpRefuse}, 2
		}
		return Op{Kind: OpPopMask, Mask: mask << 4}, 2
	case op == 0x9d || op == 0x9f:
		return Op{Kind: OpReserved}, 1
	case op&0xf0 == 0x90:
		return Op{Kind: OpVSPReg, Reg: op & 0x0f}, 1
	case op&0xf0 == 0xa0:
		mask := uint16(1)<<(op&7+5) - 1 - (1<<4 - 1) // r4..r[4+nnn]
		if op&0x08 != 0 {
			mask |= 1 << 14
		}
		return Op{Kind: OpPopMask, Mask: mask}, 1
	case op == 0xb0:
		return Op{Kind: OpFinish}, 1
	case op == 0xb1:
		x, ok := second()
		if !ok {
			return Op{Kind: OpTruncated}, 1
		}
		if x == 0 || x&0xf0 != 0 {
			return Op{Kind: OpSpare}, 2
		}
		return Op{Kind: OpPopMask, Mask: uint16(x)}, 2
	case op == 0xb2:
		var v uint64
		for i := 1; i < len(b) && i <= maxULEB; i++ {
			v |= uint64(b[i]&0x7f) << (7 * (i - 1))
			if b[i]&0x80 == 0 {
				return Op{Kind: OpVSPAdd, Value: uint32(0x204 + v<<2)}, i + 1
			}
		}
		return Op{Kind: OpTruncated}, min(len(b), maxULEB+1)
	case op == 0xb3 || op == 0xc8 || op == 0xc9 || op == 0xc6:
		x, ok := second()
		if !ok {
			return Op{Kind: OpTruncated}, 1
		}
		first, count := x>>4, x&0x0f+1
		switch op {
		case 0xb3:
			return Op{Kind: OpPopVFPX, First: first, Count: count}, 2
		case 0xc8:
			return Op{Kind: OpPopVFPD, First: 16 + first, Count: count}, 2
		case 0xc9:
			return Op{Kind: OpPopVFPD, First: first, Count: count}, 2
		}
		return Op{Kind: OpPopWR, First: first, Count: count}, 2
	case op == 0xb4:
		return Op{Kind: OpPopRAAuth}, 1
	case op&0xfc == 0xb4:
		return Op{Kind: OpSpare}, 1
	case op&0xf8 == 0xb8:
		return Op{Kind: OpPopVFPX, First: 8, Count: op&7 + 1}, 1
	case op == 0xc7:
		x, ok := second()
		if !ok {
			return Op{Kind: OpTruncated}, 1
		}
		if x == 0 || x&0xf0 != 0 {
			return Op{Kind: OpSpare}, 2
		}
		return Op{Kind: OpPopWCGR, Mask: uint16(x)}, 2
	case op&0xf8 == 0xc0:
		return Op{Kind: OpPopWR, First: 10, Count: op&7 + 1}, 1
	case op&0xf8 == 0xd0:
		return Op{Kind: OpPopVFPD, First: 8, Count: op&7 + 1}, 1
	}
	return Op{Kind: OpUnsupported}, 1
}

// String formats the op as binutils' readelf -u does: the encoding's
// bytes, then what it does ("0x84 0x00 pop {r14}"), with single spaces
// where readelf pads to a column.
func (o Op) String() string {
	var sb strings.Builder
	for _, b := range o.Bytes {
		fmt.Fprintf(&sb, "0x%02x ", b)
	}
	sb.WriteString(o.Describe())
	return sb.String()
}

// Describe is readelf -u's text for the op, without its bytes.
func (o Op) Describe() string {
	switch o.Kind {
	case OpVSPAdd:
		return "vsp = vsp + " + strconv.FormatUint(uint64(o.Value), 10)
	case OpVSPSub:
		return "vsp = vsp - " + strconv.FormatUint(uint64(o.Value), 10)
	case OpRefuse:
		return "Refuse to unwind"
	case OpPopMask:
		return "pop " + regList("r", 0, o.Mask)
	case OpVSPReg:
		return "vsp = r" + strconv.Itoa(int(o.Reg))
	case OpFinish:
		return "finish"
	case OpPopVFPX, OpPopVFPD:
		return "pop " + regRange("D", o.First, o.Count)
	case OpPopWR:
		return "pop " + regRange("wR", o.First, o.Count)
	case OpPopWCGR:
		return "pop " + regList("wCGR", 0, o.Mask)
	case OpPopRAAuth:
		return "pop {ra_auth_code}"
	case OpReserved:
		return "[Reserved]"
	case OpSpare:
		return "[Spare]"
	case OpTruncated:
		return "[Truncated opcode]"
	}
	return "[unsupported opcode]"
}

// regList prints the registers of mask as "{r4, r5, r14}".
func regList(prefix string, base int, mask uint16) string {
	var names []string
	for r := 0; r < 16; r++ {
		if mask&(1<<r) != 0 {
			names = append(names, prefix+strconv.Itoa(base+r))
		}
	}
	return "{" + strings.Join(names, ", ") + "}"
}

// regRange prints count registers from first as "{D8-D15}", or "{D8}".
func regRange(prefix string, first, count uint8) string {
	s := "{" + prefix + strconv.Itoa(int(first))
	if count > 1 {
		s += "-" + prefix + strconv.Itoa(int(first)+int(count)-1)
	}
	return s + "}"
}

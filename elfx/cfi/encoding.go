package cfi

import (
	"errors"
	"fmt"
)

// Pointer encodings (DW_EH_PE_*), as used by .eh_frame augmentation data
// and .eh_frame_hdr. The low nibble is the value's format, bits 4-6 what it
// is relative to, bit 7 "indirect".
const (
	PEAbsPtr  = 0x00
	PEULEB128 = 0x01
	PEUData2  = 0x02
	PEUData4  = 0x03
	PEUData8  = 0x04
	PESLEB128 = 0x09
	PESData2  = 0x0a
	PESData4  = 0x0b
	PESData8  = 0x0c

	PEPCRel   = 0x10
	PETextRel = 0x20
	PEDataRel = 0x30
	PEFuncRel = 0x40
	PEAligned = 0x50

	PEIndirect = 0x80
	PEOmit     = 0xff
)

// errUnsupportedBase says a pointer is relative to a base this package
// cannot know (text or function start): the caller gets a clear error
// instead of a wrong address.
var errUnsupportedBase = errors.New("pointer encoding relative to text/function start is not supported")

// ptrBases are the addresses relative encodings add to the raw value.
type ptrBases struct {
	pc      uint64 // link-time address of the encoded field (for pcrel)
	data    uint64 // datarel base (.eh_frame_hdr's address for its table)
	hasData bool
}

// encodedSize is the byte size of a fixed-size encoding, 0 for LEB128 or
// an invalid format.
func encodedSize(enc uint8, ptrSize int) int {
	switch enc & 0x0f {
	case PEAbsPtr:
		return ptrSize
	case PEUData2, PESData2:
		return 2
	case PEUData4, PESData4:
		return 4
	case PEUData8, PESData8:
		return 8
	}
	return 0
}

// validEncoding reports whether enc is a pointer encoding this package can
// read (omit excluded).
func validEncoding(enc uint8) bool {
	switch enc & 0x0f {
	case PEAbsPtr, PEULEB128, PEUData2, PEUData4, PEUData8, PESLEB128, PESData2, PESData4, PESData8:
	default:
		return false
	}
	return enc&0x70 <= PEAligned
}

// readEncodedRaw reads the value of enc's format, sign-extended for the
// signed formats, without applying any base.
func readEncodedRaw(r *reader, enc uint8, ptrSize int) (uint64, error) {
	switch enc & 0x0f {
	case PEAbsPtr:
		return r.uint(ptrSize)
	case PEULEB128:
		return r.uleb()
	case PEUData2:
		v, err := r.u16()
		return uint64(v), err
	case PEUData4:
		v, err := r.u32()
		return uint64(v), err
	case PEUData8:
		return r.u64()
	case PESLEB128:
		v, err := r.sleb()
		return uint64(v), err
	case PESData2:
		v, err := r.u16()
		return uint64(int64(int16(v))), err
	case PESData4:
		v, err := r.u32()
		return uint64(int64(int32(v))), err
	case PESData8:
		return r.u64()
	}
	return 0, fmt.Errorf("invalid pointer encoding %#x", enc)
}

// readEncoded reads a pointer in encoding enc and applies its base. For
// DW_EH_PE_indirect the result is the address where the real pointer is
// stored: this package has no access to the target's memory, so the caller
// dereferences it (in the loaded image, after adding the load bias).
// The result is truncated to ptrSize bytes.
func readEncoded(r *reader, enc uint8, ptrSize int, b ptrBases) (uint64, error) {
	if enc == PEOmit {
		return 0, nil
	}
	if !validEncoding(enc) {
		return 0, fmt.Errorf("invalid pointer encoding %#x", enc)
	}
	fieldAddr := b.pc + uint64(r.pos)
	if enc&0x70 == PEAligned {
		// The value sits at the next ptrSize-aligned address.
		if a := fieldAddr % uint64(ptrSize); a != 0 {
			if err := r.skip(uint64(ptrSize) - a); err != nil {
				return 0, err
			}
			fieldAddr += uint64(ptrSize) - a
		}
	}
	v, err := readEncodedRaw(r, enc, ptrSize)
	if err != nil {
		return 0, err
	}
	switch enc & 0x70 {
	case PEAbsPtr, PEAligned:
	case PEPCRel:
		v += fieldAddr
	case PEDataRel:
		if !b.hasData {
			return 0, errors.New("datarel pointer encoding outside .eh_frame_hdr is not supported")
		}
		v += b.data
	default:
		return 0, errUnsupportedBase
	}
	return truncPtr(v, ptrSize), nil
}

func truncPtr(v uint64, ptrSize int) uint64 {
	if ptrSize == 4 {
		return v & 0xffffffff
	}
	return v
}

package unwtab

import (
	"encoding/binary"
	"fmt"
)

// Unwind info header flags (bits 32..47 of the header word).
const (
	FlagEHandler = 0x1
	FlagUHandler = 0x2
)

// Info is an unwind info block: the header, the descriptor area and the
// personality word when a handler flag is set.
type Info struct {
	Version uint16
	Flags   uint16
	// Length is the descriptor area's size in bytes (ulen words).
	Length uint64
	Desc   []byte
	// Personality is the gp-relative personality word (valid when
	// Flags has EHANDLER or UHANDLER); LSDAOffset is where the
	// language-specific data starts, relative to the block.
	Personality    uint64
	HasPersonality bool
	LSDAOffset     uint64
}

// ParseInfo parses the block at data[off:]. Every length is checked
// against the bytes present.
func ParseInfo(data []byte, off uint64, order binary.ByteOrder, ptrSize int) (*Info, error) {
	if off > uint64(len(data)) || uint64(len(data))-off < 8 {
		return nil, fmt.Errorf("unwind info at offset %#x: header past the end of its section (%d bytes)", off, len(data))
	}
	hdr := order.Uint64(data[off:])
	in := &Info{Version: uint16(hdr >> 48), Flags: uint16(hdr >> 32)}
	in.Length = (hdr & 0xffffffff) * uint64(ptrSize)
	if in.Version != 1 {
		return in, fmt.Errorf("unwind info at offset %#x: version %d, want 1", off, in.Version)
	}
	rest := uint64(len(data)) - off - 8
	if in.Length > rest {
		return in, fmt.Errorf("unwind info at offset %#x: %d bytes of descriptors, only %d in the section", off, in.Length, rest)
	}
	in.Desc = data[off+8 : off+8+in.Length]
	if in.Flags&(FlagEHandler|FlagUHandler) != 0 {
		p := off + 8 + in.Length
		if uint64(len(data))-p >= uint64(ptrSize) {
			if ptrSize == 4 {
				in.Personality = uint64(order.Uint32(data[p:]))
			} else {
				in.Personality = order.Uint64(data[p:])
			}
			in.HasPersonality = true
		}
		in.LSDAOffset = 8 + in.Length + uint64(ptrSize)
	}
	return in, nil
}

// FlagNames names the set header flags as the tables JSON does.
func (in *Info) FlagNames() []string {
	var s []string
	if in.Flags&FlagEHandler != 0 {
		s = append(s, "EHANDLER")
	}
	if in.Flags&FlagUHandler != 0 {
		s = append(s, "UHANDLER")
	}
	return s
}

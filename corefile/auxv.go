package corefile

import "encoding/binary"

// Auxiliary vector tags the loader uses (include/uapi/linux/auxvec.h).
const (
	AT_NULL         = 0
	AT_PHDR         = 3
	AT_PHENT        = 4
	AT_PHNUM        = 5
	AT_PAGESZ       = 6
	AT_BASE         = 7
	AT_ENTRY        = 9
	AT_EXECFN       = 31
	AT_SYSINFO_EHDR = 33
)

// AuxEntry is one auxiliary vector entry.
type AuxEntry struct {
	Tag, Val uint64
}

// parseAuxv decodes NT_AUXV: (tag, value) word pairs up to AT_NULL.
func parseAuxv(d []byte, order binary.ByteOrder, ptrSize int) []AuxEntry {
	var out []AuxEntry
	for len(d) >= 2*ptrSize {
		var e AuxEntry
		if ptrSize == 8 {
			e.Tag, e.Val = order.Uint64(d), order.Uint64(d[8:])
		} else {
			e.Tag, e.Val = uint64(order.Uint32(d)), uint64(order.Uint32(d[4:]))
		}
		if e.Tag == AT_NULL {
			break
		}
		out = append(out, e)
		d = d[2*ptrSize:]
	}
	return out
}

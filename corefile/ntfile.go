package corefile

import (
	"bytes"
	"encoding/binary"
)

// Mapping is one file-backed mapping recorded in NT_FILE.
type Mapping struct {
	Start, End uint64 // [Start, End)
	Offset     uint64 // file offset in bytes (page offset × page size)
	Path       string // as the kernel recorded it; may end in " (deleted)"
}

// parseNTFile decodes NT_FILE: count and page size (words), then count
// (start, end, page offset) word triples, then count NUL-terminated names.
// The count is bounded by the bytes present; a short descriptor yields the
// entries that are complete and an error.
func parseNTFile(d []byte, order binary.ByteOrder, ptrSize int) ([]Mapping, error) {
	w := uint64(ptrSize)
	word := func(b []byte) uint64 {
		if ptrSize == 8 {
			return order.Uint64(b)
		}
		return uint64(order.Uint32(b))
	}
	if uint64(len(d)) < 2*w {
		return nil, formatErr(0, "NT_FILE too short: %d bytes", len(d))
	}
	count, pageSize := word(d), word(d[w:])
	maxCount := (uint64(len(d)) - 2*w) / (3 * w)
	var err error
	if count > maxCount {
		err = formatErr(0, "NT_FILE claims %d entries, only %d fit", count, maxCount)
		count = maxCount
	}
	names := d[2*w+count*3*w:]
	maps := make([]Mapping, 0, count)
	for i := uint64(0); i < count; i++ {
		e := d[2*w+i*3*w:]
		m := Mapping{Start: word(e), End: word(e[w:])}
		pg := word(e[2*w:])
		m.Offset = pg * pageSize
		if pageSize != 0 && m.Offset/pageSize != pg {
			m.Offset = ^uint64(0) // overflow: no file offset is valid
		}
		j := bytes.IndexByte(names, 0)
		if j < 0 {
			if err == nil {
				err = formatErr(0, "NT_FILE names end after %d of %d entries", i, count)
			}
			m.Path = string(names)
			names = nil
		} else {
			m.Path = string(names[:j])
			names = names[j+1:]
		}
		if m.End < m.Start {
			continue
		}
		maps = append(maps, m)
	}
	return maps, err
}

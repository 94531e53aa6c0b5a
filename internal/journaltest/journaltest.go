// Package journaltest builds small systemd journal files by hand, for
// tests: what systemd-journal-remote does not write (XZ and LZ4 fields,
// which journald of other builds and older versions do), hostile
// variations, and fuzz seeds small enough to mutate (a file from
// systemd holds megabytes of hash tables). The layout is written from
// systemd's journal-def.h independently of package journal, so that a
// misreading in the reader is not copied into its test input. Tests
// only.
package journaltest

import (
	"encoding/binary"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Object flags of a DATA object (journal-def.h: OBJECT_COMPRESSED_*).
const (
	CompressedXZ   = 1
	CompressedLZ4  = 2
	CompressedZSTD = 4
)

// Field is one field of an entry: its bytes ("NAME=value") and how they
// are stored.
type Field struct {
	Data  string
	Flags uint8  // Compressed*, 0: stored as is
	Store []byte // the stored payload when compressed
}

// Build returns a journal file of the given entries, in the compact or
// the regular layout: the header, one DATA object per field, one ENTRY
// per entry, one entry array. The hash tables are left out.
func Build(compact bool, entries ...[]Field) []byte {
	le := binary.LittleEndian
	const headerSize = 272
	b := make([]byte, headerSize)
	copy(b, "LPKSHHRH")
	incompat := uint32(4) // keyed hash
	if compact {
		incompat |= 16
	}
	object := func(typ, flags uint8, body []byte) uint64 {
		for len(b)%8 != 0 {
			b = append(b, 0)
		}
		off := uint64(len(b))
		b = append(b, typ, flags, 0, 0, 0, 0, 0, 0)
		b = le.AppendUint64(b, uint64(16+len(body)))
		b = append(b, body...)
		return off
	}
	var entryOffs []uint64
	for i, fields := range entries {
		var items []uint64
		for _, f := range fields {
			// hash, next_hash, next_field, entry, entry_array,
			// n_entries; compact: and two le32.
			body := make([]byte, 48)
			if compact {
				body = make([]byte, 56)
			}
			payload := []byte(f.Data)
			switch f.Flags {
			case CompressedXZ:
				incompat |= 1
				payload = f.Store
			case CompressedLZ4:
				incompat |= 2
				payload = f.Store
			case CompressedZSTD:
				incompat |= 8
				payload = f.Store
			}
			items = append(items, object(1, f.Flags, append(body, payload...)))
		}
		// seqnum, realtime, monotonic, boot_id, xor_hash
		e := make([]byte, 48)
		le.PutUint64(e[0:], uint64(i+1))
		le.PutUint64(e[8:], 1700000000000000+uint64(i))
		le.PutUint64(e[16:], 1000+uint64(i))
		for _, it := range items {
			if compact {
				e = le.AppendUint32(e, uint32(it))
			} else {
				e = le.AppendUint64(le.AppendUint64(e, it), 0)
			}
		}
		entryOffs = append(entryOffs, object(3, 0, e))
	}
	arr := make([]byte, 8) // next_entry_array_offset
	for _, o := range entryOffs {
		if compact {
			arr = le.AppendUint32(arr, uint32(o))
		} else {
			arr = le.AppendUint64(arr, o)
		}
	}
	arrOff := object(6, 0, arr)
	le.PutUint32(b[12:], incompat)
	le.PutUint64(b[88:], headerSize)                // header_size
	le.PutUint64(b[96:], uint64(len(b)-headerSize)) // arena_size
	le.PutUint64(b[152:], uint64(len(entries)))     // n_entries
	le.PutUint64(b[176:], arrOff)                   // entry_array_offset
	return b
}

// LZ4 stores data as journald's LZ4 fields are: le64 size, then one raw
// block.
func LZ4(data string) Field {
	dst := make([]byte, lz4.CompressBlockBound(len(data)))
	n, err := lz4.CompressBlock([]byte(data), dst, nil)
	if err != nil || n == 0 {
		panic("lz4: incompressible test data")
	}
	return Field{Data: data, Flags: CompressedLZ4, Store: append(binary.LittleEndian.AppendUint64(nil, uint64(len(data))), dst[:n]...)}
}

// ZSTD stores data as one zstd frame, as journald's ZSTD fields are.
func ZSTD(data string) Field {
	enc, _ := zstd.NewWriter(nil)
	return Field{Data: data, Flags: CompressedZSTD, Store: enc.EncodeAll([]byte(data), nil)}
}

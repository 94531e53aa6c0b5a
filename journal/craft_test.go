package journal

import (
	"bytes"
	"encoding/binary"

	"github.com/pierrec/lz4/v4"
)

// craftField is a field for craftJournal: its bytes ("NAME=value") and
// how to store them.
type craftField struct {
	data  string
	flags uint8  // objectCompressed*, 0: stored as is
	store []byte // the stored payload when compressed
}

// craftJournal builds a journal file by hand, for what
// systemd-journal-remote does not write (XZ and LZ4 fields, which
// journald of other builds and older versions do) and for hostile
// variations: the header, one DATA object per field, one ENTRY per
// entry and one entry array. The hash tables are left out (no reader
// here uses them).
func craftJournal(compact bool, entries ...[]craftField) []byte {
	le := binary.LittleEndian
	const headerSize = 272
	b := make([]byte, headerSize)
	copy(b, signature)
	incompat := uint32(IncompatibleKeyedHash)
	if compact {
		incompat |= IncompatibleCompact
	}
	align := func() {
		for len(b)%8 != 0 {
			b = append(b, 0)
		}
	}
	object := func(typ, flags uint8, body []byte) uint64 {
		align()
		off := uint64(len(b))
		b = append(b, typ, flags, 0, 0, 0, 0, 0, 0)
		b = le.AppendUint64(b, uint64(objectHeaderSize+len(body)))
		b = append(b, body...)
		return off
	}
	var entryOffs []uint64
	for i, fields := range entries {
		var items []uint64
		for _, f := range fields {
			body := make([]byte, dataPayload-objectHeaderSize)
			if compact {
				body = make([]byte, dataPayloadCompact-objectHeaderSize)
			}
			payload := []byte(f.data)
			switch f.flags {
			case objectCompressedXZ:
				incompat |= IncompatibleCompressedXZ
				payload = f.store
			case objectCompressedLZ4:
				incompat |= IncompatibleCompressedLZ4
				payload = f.store
			case objectCompressedZSTD:
				incompat |= IncompatibleCompressedZSTD
				payload = f.store
			}
			items = append(items, object(objectData, f.flags, append(body, payload...)))
		}
		e := make([]byte, entryItems-objectHeaderSize)
		le.PutUint64(e[entrySeqnum-objectHeaderSize:], uint64(i+1))
		le.PutUint64(e[entryRealtime-objectHeaderSize:], 1700000000000000+uint64(i))
		le.PutUint64(e[entryMonotonic-objectHeaderSize:], 1000+uint64(i))
		for _, it := range items {
			if compact {
				e = le.AppendUint32(e, uint32(it))
			} else {
				e = le.AppendUint64(le.AppendUint64(e, it), 0)
			}
		}
		entryOffs = append(entryOffs, object(objectEntry, 0, e))
	}
	arr := make([]byte, entryArrayItems-objectHeaderSize)
	for _, o := range entryOffs {
		if compact {
			arr = le.AppendUint32(arr, uint32(o))
		} else {
			arr = le.AppendUint64(arr, o)
		}
	}
	arrOff := object(objectEntryArray, 0, arr)
	le.PutUint32(b[hdrIncompatible:], incompat)
	le.PutUint64(b[hdrHeaderSize:], headerSize)
	le.PutUint64(b[hdrArenaSize:], uint64(len(b)-headerSize))
	le.PutUint64(b[hdrNEntries:], uint64(len(entries)))
	le.PutUint64(b[hdrEntryArrayOffset:], arrOff)
	return b
}

// lz4Field stores data as journald's LZ4 fields are: le64 size, then one
// raw block.
func lz4Field(data string) craftField {
	dst := make([]byte, lz4.CompressBlockBound(len(data)))
	n, err := lz4.CompressBlock([]byte(data), dst, nil)
	if err != nil || n == 0 {
		panic("lz4: incompressible test data")
	}
	return craftField{data: data, flags: objectCompressedLZ4, store: append(binary.LittleEndian.AppendUint64(nil, uint64(len(data))), dst[:n]...)}
}

func repeat(s string, n int) string { return string(bytes.Repeat([]byte(s), n)) }

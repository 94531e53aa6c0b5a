package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
)

// Looking entries up by a field, as journalctl MESSAGE_ID=... does: the
// DATA object of "NAME=value" is found through the data hash table, and
// lists the entries that have it (its first entry, then a chain of
// entry arrays), so a large journal is not read entry by entry.

// ErrNotFound: no entry of the file has the field looked up.
var ErrNotFound = errors.New("journal: no entry has the field")

// Offsets in a DATA object, after the object header.
const (
	dataHash       = 16
	dataNextHash   = 24
	dataEntry      = 40
	dataEntryArray = 48
	dataNEntries   = 56

	hdrDataHashTableOffset = 104
	hdrDataHashTableSize   = 112
	hashItemSize           = 16 // head_hash_offset, tail_hash_offset
)

// Find returns the DATA object holding field ("NAME=value", exactly),
// ErrNotFound when the file has none, or an error when the hash table
// cannot be read (then only a walk of all entries can tell).
func (f *File) Find(field string) (*Data, error) {
	var h [16]byte
	if _, err := f.r.ReadAt(h[:], hdrDataHashTableOffset); err != nil {
		return nil, fmt.Errorf("journal: reading the header: %w", err)
	}
	tableOff, tableSize := le.Uint64(h[:]), le.Uint64(h[8:])
	if tableSize < hashItemSize || tableOff > uint64(f.size) || tableSize > uint64(f.size)-tableOff {
		return nil, formatErr(hdrDataHashTableOffset, "data hash table at 0x%x, %d bytes, outside the file", tableOff, tableSize)
	}
	hash := f.hash([]byte(field))
	bucket := tableOff + hash%(tableSize/hashItemSize)*hashItemSize
	var item [8]byte
	if _, err := f.r.ReadAt(item[:], int64(bucket)); err != nil {
		return nil, fmt.Errorf("journal: reading the data hash table: %w", err)
	}
	prev := uint64(0)
	for off := le.Uint64(item[:]); off != 0; {
		// Each new object is appended to its chain and to the file:
		// a chain that does not go forward is damaged (or a loop).
		if off <= prev {
			return nil, formatErr(off, "hash chain goes back from 0x%x", prev)
		}
		prev = off
		o, err := f.object(off, objectData)
		if err != nil {
			return nil, fmt.Errorf("hash chain: %w", err)
		}
		b, err := f.read(o, dataHash, dataNextHash+8-dataHash)
		if err != nil {
			return nil, err
		}
		if le.Uint64(b) == hash {
			d, err := f.Data(off)
			if err != nil {
				return nil, err
			}
			if same, err := d.equals(field); err != nil {
				return nil, err
			} else if same {
				return d, nil
			}
		}
		off = le.Uint64(b[dataNextHash-dataHash:])
	}
	return nil, ErrNotFound
}

// equals says whether the data object holds exactly field.
func (d *Data) equals(field string) (bool, error) {
	r, done, err := d.Open()
	if err != nil {
		return false, err
	}
	defer done()
	b, err := io.ReadAll(io.LimitReader(r, int64(len(field))+1))
	if err != nil {
		return false, err
	}
	return bytes.Equal(b, []byte(field)), nil
}

// EntriesWith returns the entries that have the field d holds, in the
// file's order, as Entries does (an error that stops the walk is
// yielded last).
func (f *File) EntriesWith(d *Data) iter.Seq2[*Entry, error] {
	return func(yield func(*Entry, error) bool) {
		o, err := f.object(d.Offset, objectData)
		if err != nil {
			yield(nil, err)
			return
		}
		b, err := f.read(o, dataEntry, dataNEntries+8-dataEntry)
		if err != nil {
			yield(nil, err)
			return
		}
		first, array, n := le.Uint64(b), le.Uint64(b[dataEntryArray-dataEntry:]), le.Uint64(b[dataNEntries-dataEntry:])
		if n == 0 || first == 0 {
			return
		}
		if !yield(f.entry(first)) {
			return
		}
		f.walkArrays(array, n-1, yield)
	}
}

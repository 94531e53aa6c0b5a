package journal

import (
	"fmt"
	"iter"
)

// Entry is one journal entry: its timestamps and the DATA objects of its
// fields.
type Entry struct {
	Offset    uint64 // the ENTRY object's file offset
	Seqnum    uint64
	Realtime  uint64 // microseconds since the epoch
	Monotonic uint64 // microseconds since boot
	BootID    ID128
	XorHash   uint64
	// Items are the file offsets of the entry's DATA objects, one per
	// field, in the file's order.
	Items []uint64
}

// Cursor is the entry's cursor as journalctl prints it (__CURSOR), which
// journalctl --cursor and coredumpctl accept.
func (f *File) Cursor(e *Entry) string {
	return fmt.Sprintf("s=%s;i=%x;b=%s;m=%x;t=%x;x=%x", f.Header.SeqnumID, e.Seqnum, e.BootID, e.Monotonic, e.Realtime, e.XorHash)
}

// Entries returns the entries in the order of the file's entry arrays
// (journalctl's order), each with nil error; after an error that stops
// the walk (a broken entry array) it yields that error and ends. An
// entry that cannot be read is yielded as an error and the walk goes
// on. The chain is read as it goes: a journal of any size takes the
// memory of one entry array at a time.
func (f *File) Entries() iter.Seq2[*Entry, error] {
	return func(yield func(*Entry, error) bool) {
		f.walkArrays(f.Header.EntryArrayOffset, f.Header.NEntries, yield)
	}
}

// walkArrays yields the entries of the chain of entry arrays starting at
// off, at most n of them (what the header or the DATA object counts).
func (f *File) walkArrays(off, n uint64, yield func(*Entry, error) bool) {
	itemSize := uint64(8)
	if f.Header.Compact() {
		itemSize = 4
	}
	seen := uint64(0)
	prev := uint64(0)
	for off != 0 && seen < n {
		// systemd appends each new array at the end of the file: a
		// chain that goes backwards is damaged (or a loop).
		if off <= prev {
			yield(nil, formatErr(off, "entry array chain goes back from 0x%x", prev))
			return
		}
		o, err := f.object(off, objectEntryArray)
		if err != nil {
			yield(nil, fmt.Errorf("entry array: %w", err))
			return
		}
		if o.size < entryArrayItems {
			yield(nil, formatErr(off, "entry array of %d bytes", o.size))
			return
		}
		b, err := f.read(o, entryArrayNext, o.size-entryArrayNext)
		if err != nil {
			yield(nil, err)
			return
		}
		next := le.Uint64(b)
		for items := b[entryArrayItems-entryArrayNext:]; uint64(len(items)) >= itemSize && seen < n; items = items[itemSize:] {
			var p uint64
			if itemSize == 4 {
				p = uint64(le.Uint32(items))
			} else {
				p = le.Uint64(items)
			}
			if p == 0 {
				break // the rest of the array is not used yet
			}
			seen++
			if !yield(f.entry(p)) {
				return
			}
		}
		prev, off = off, next
	}
}

// entry reads the ENTRY object at off.
func (f *File) entry(off uint64) (*Entry, error) {
	o, err := f.object(off, objectEntry)
	if err != nil {
		return nil, fmt.Errorf("entry: %w", err)
	}
	if o.size < entryItems {
		return nil, formatErr(off, "entry of %d bytes", o.size)
	}
	b, err := f.read(o, 0, o.size)
	if err != nil {
		return nil, err
	}
	e := &Entry{
		Offset:    off,
		Seqnum:    le.Uint64(b[entrySeqnum:]),
		Realtime:  le.Uint64(b[entryRealtime:]),
		Monotonic: le.Uint64(b[entryMonotonic:]),
		XorHash:   le.Uint64(b[entryXorHash:]),
	}
	copy(e.BootID[:], b[entryBootID:])
	items := b[entryItems:]
	if f.Header.Compact() {
		e.Items = make([]uint64, 0, len(items)/4)
		for ; len(items) >= 4; items = items[4:] {
			e.Items = append(e.Items, uint64(le.Uint32(items)))
		}
	} else {
		// Regular items are an offset and the DATA object's hash.
		e.Items = make([]uint64, 0, len(items)/16)
		for ; len(items) >= 16; items = items[16:] {
			e.Items = append(e.Items, le.Uint64(items))
		}
	}
	return e, nil
}

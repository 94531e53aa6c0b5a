package journal

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

var le = binary.LittleEndian

// FormatError says what is wrong in a journal file and where.
type FormatError struct {
	Off uint64 // file offset of the offending structure
	Msg string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("journal: %s at offset 0x%x", e.Msg, e.Off)
}

func formatErr(off uint64, format string, args ...any) error {
	return &FormatError{Off: off, Msg: fmt.Sprintf(format, args...)}
}

// ID128 is a 128-bit id (file, machine, boot, seqnum id).
type ID128 [16]byte

// String is the id as systemd prints it: 32 lower-case hex digits.
func (id ID128) String() string { return hex.EncodeToString(id[:]) }

// Header is what a reader needs of a journal file's header.
type Header struct {
	Compatible, Incompatible uint32
	State                    uint8 // StateOffline, StateOnline, StateArchived
	FileID, MachineID        ID128
	SeqnumID                 ID128
	HeaderSize               uint64
	ArenaSize                uint64
	NObjects, NEntries       uint64
	EntryArrayOffset         uint64 // the first entry array, 0 when there are no entries
}

// Compact says the file uses the compact layout (32-bit offsets in
// entries and entry arrays).
func (h *Header) Compact() bool { return h.Incompatible&IncompatibleCompact != 0 }

// File is an open journal file.
type File struct {
	Header Header
	r      io.ReaderAt
	size   int64
	closer io.Closer
}

// Open opens the journal file at path.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	j, err := New(f, fi.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	j.closer = f
	return j, nil
}

// New reads the journal file of size bytes that r reads.
func New(r io.ReaderAt, size int64) (*File, error) {
	var b [minHeaderSize]byte
	if size < int64(len(b)) {
		if size >= int64(len(signature)) {
			if _, err := r.ReadAt(b[:len(signature)], 0); err == nil && string(b[:len(signature)]) != signature {
				return nil, ErrNotJournal
			}
		}
		return nil, formatErr(0, "file of %d bytes is shorter than a journal header", size)
	}
	if _, err := r.ReadAt(b[:], 0); err != nil {
		return nil, fmt.Errorf("journal: reading the header: %w", err)
	}
	if string(b[:len(signature)]) != signature {
		return nil, ErrNotJournal
	}
	h := Header{
		Compatible:       le.Uint32(b[hdrCompatible:]),
		Incompatible:     le.Uint32(b[hdrIncompatible:]),
		State:            b[hdrState],
		HeaderSize:       le.Uint64(b[hdrHeaderSize:]),
		ArenaSize:        le.Uint64(b[hdrArenaSize:]),
		NObjects:         le.Uint64(b[hdrNObjects:]),
		NEntries:         le.Uint64(b[hdrNEntries:]),
		EntryArrayOffset: le.Uint64(b[hdrEntryArrayOffset:]),
	}
	copy(h.FileID[:], b[hdrFileID:])
	copy(h.MachineID[:], b[hdrMachineID:])
	copy(h.SeqnumID[:], b[hdrSeqnumID:])
	if unknown := h.Incompatible &^ knownIncompatible; unknown != 0 {
		return nil, formatErr(hdrIncompatible, "unknown incompatible flags %#x", unknown)
	}
	if h.HeaderSize < minHeaderSize || h.HeaderSize > uint64(size) || h.HeaderSize%8 != 0 {
		return nil, formatErr(hdrHeaderSize, "header size %d (file size %d)", h.HeaderSize, size)
	}
	return &File{Header: h, r: r, size: size}, nil
}

// ErrNotJournal: the file does not start with a journal file's signature.
var ErrNotJournal = fmt.Errorf("not a journal file (no %q signature)", signature)

// IsJournal says whether head, a file's first bytes, is a journal
// file's signature.
func IsJournal(head []byte) bool {
	return len(head) >= len(signature) && string(head[:len(signature)]) == signature
}

// Close closes the file Open opened.
func (f *File) Close() error {
	if f.closer == nil {
		return nil
	}
	return f.closer.Close()
}

// object is one object's header, checked to lie within the file.
type object struct {
	off   uint64
	typ   uint8
	flags uint8
	size  uint64
}

// object reads the object header at off and checks that the object is
// of type want and lies within the file.
func (f *File) object(off uint64, want uint8) (object, error) {
	if off%8 != 0 || off < f.Header.HeaderSize || off > uint64(f.size) || uint64(f.size)-off < objectHeaderSize {
		return object{}, formatErr(off, "object offset outside the file's objects")
	}
	var b [objectHeaderSize]byte
	if _, err := f.r.ReadAt(b[:], int64(off)); err != nil {
		return object{}, fmt.Errorf("journal: reading the object at 0x%x: %w", off, err)
	}
	o := object{off: off, typ: b[0], flags: b[1], size: le.Uint64(b[8:])}
	switch {
	case o.typ != want:
		return object{}, formatErr(off, "object of type %d, want %d", o.typ, want)
	case o.size < objectHeaderSize || o.size > uint64(f.size)-off:
		return object{}, formatErr(off, "object size %d runs past the end of the file (%d bytes)", o.size, f.size)
	}
	return o, nil
}

// read reads n bytes at off, within object o (checked by the caller's
// arithmetic against o.size).
func (f *File) read(o object, rel, n uint64) ([]byte, error) {
	if rel > o.size || n > o.size-rel {
		return nil, formatErr(o.off, "object of %d bytes too short for %d bytes at %d", o.size, n, rel)
	}
	b := make([]byte, n)
	if _, err := f.r.ReadAt(b, int64(o.off+rel)); err != nil {
		return nil, fmt.Errorf("journal: reading the object at 0x%x: %w", o.off, err)
	}
	return b, nil
}

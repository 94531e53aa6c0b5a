package cfi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
)

const (
	sectionEH    = ".eh_frame"
	sectionDebug = ".debug_frame"
)

// Table is one object's call frame information: an .eh_frame (optionally
// with its .eh_frame_hdr) or a .debug_frame. It keeps the section bytes
// (never modified) and decodes entries on demand. A Table is safe for
// concurrent use.
type Table struct {
	section string
	eh      bool
	data    []byte
	addr    uint64
	order   binary.ByteOrder
	ptrSize int

	hdr      *hdrTable // nil without a usable .eh_frame_hdr
	hdrOnce  sync.Once
	hdrValid bool
	hdrBad   atomic.Bool // validated and rejected: lookups skip the header
	hdrErr   error       // why a given .eh_frame_hdr is not used

	cies sync.Map // uint64 offset -> cieResult
	// fdes keeps the FDEs found by address (uint64 offset -> *FDE), with
	// the rows computed from them: a batch of cores unwinds through the
	// same few functions of the same binaries again and again.
	fdes sync.Map

	indexOnce sync.Once
	index     []indexEntry
	indexErr  error
}

// indexEntry is one FDE in the lazily built sorted index.
type indexEntry struct {
	begin, end uint64
	off        uint64
}

// NewEHFrame returns the table of an .eh_frame section. data is the
// section's bytes and addr its link-time address (sh_addr). hdr and
// hdrAddr are the .eh_frame_hdr section's bytes and address; hdr may be nil,
// and a header that cannot be used (bad version, unsorted or variable-size
// table, pointing elsewhere) is ignored: lookups then build a sorted index
// of the FDEs once, on first use. order and ptrSize are the target's.
func NewEHFrame(data []byte, addr uint64, hdr []byte, hdrAddr uint64, order binary.ByteOrder, ptrSize int) (*Table, error) {
	t, err := newTable(sectionEH, data, addr, order, ptrSize)
	if err != nil {
		return nil, err
	}
	if hdr != nil {
		h, err := parseHdr(hdr, hdrAddr, order, ptrSize)
		if err == nil && h.ehFramePtr != addr {
			err = formatErr(".eh_frame_hdr", 4, "eh_frame_ptr %#x is not the .eh_frame address %#x", h.ehFramePtr, addr)
		}
		// A broken header only costs speed: lookups fall back to the index.
		t.hdr, t.hdrErr = h, err
		if err != nil {
			t.hdr = nil
		}
	}
	return t, nil
}

// NewDebugFrame returns the table of a .debug_frame section (CIE versions
// 1, 3 and 4; 32- and 64-bit DWARF). data is the section's bytes and addr
// its address (used only in messages about set_loc; 0 is fine).
func NewDebugFrame(data []byte, addr uint64, order binary.ByteOrder, ptrSize int) (*Table, error) {
	return newTable(sectionDebug, data, addr, order, ptrSize)
}

func newTable(section string, data []byte, addr uint64, order binary.ByteOrder, ptrSize int) (*Table, error) {
	if order == nil {
		return nil, errors.New("cfi: no byte order")
	}
	if ptrSize != 4 && ptrSize != 8 {
		return nil, fmt.Errorf("cfi: unsupported pointer size %d", ptrSize)
	}
	return &Table{section: section, eh: section == sectionEH, data: data, addr: addr, order: order, ptrSize: ptrSize}, nil
}

// Section returns ".eh_frame" or ".debug_frame".
func (t *Table) Section() string { return t.section }

// HasHeaderIndex reports whether lookups use the .eh_frame_hdr table (it
// was given and passed validation).
func (t *Table) HasHeaderIndex() bool {
	t.checkHdr()
	return t.hdrValid
}

func (t *Table) checkHdr() {
	t.hdrOnce.Do(func() {
		if t.hdr != nil {
			t.hdrErr = t.hdr.validate(uint64(len(t.data)), t.addr)
			t.hdrValid = t.hdrErr == nil
			t.hdrBad.Store(!t.hdrValid)
		}
	})
}

// HeaderError says why the .eh_frame_hdr given to NewEHFrame is not used
// (nil when it is used or none was given). It validates the header if no
// lookup has yet.
func (t *Table) HeaderError() error {
	t.checkHdr()
	return t.hdrErr
}

// FDEForPC returns the FDE covering pc (a link-time address), or an error
// wrapping ErrNoFDE. With an .eh_frame_hdr this is a binary search in the
// header's table plus one FDE decode; otherwise (or when the header's
// table turns out corrupt) a sorted index of all FDEs is built on the
// first call.
//
// The header's table is checked lazily: an FDE it leads to is returned
// only if it covers pc, so a corrupt entry cannot give a wrong FDE, only
// miss one. A miss validates the whole table once (sorted, every entry
// inside .eh_frame), and a table that fails is not used again: the index
// answers instead. Validating up front cost more than the lookups of a
// whole unwind in a large executable (node: 76,000 entries, 3.4M
// instructions).
func (t *Table) FDEForPC(pc uint64) (*FDE, error) {
	if t.hdr != nil && !t.hdrBad.Load() {
		f, err := t.hdrLookup(pc)
		if err == nil {
			return f, nil
		}
		t.checkHdr()
		if t.hdrValid {
			return nil, err
		}
	}
	t.indexOnce.Do(t.buildIndex)
	idx := t.index
	// The first entry whose begin is past pc; candidates are before it.
	i := sort.Search(len(idx), func(i int) bool { return idx[i].begin > pc })
	// FDEs rarely overlap, but when they do (discarded COMDAT code in a
	// .debug_frame, where all start at 0) the first in section order
	// wins, as in a linear search. Look back a bounded distance.
	best := -1
	for j := i - 1; j >= 0 && j >= i-16; j-- {
		if pc < idx[j].end && (best < 0 || idx[j].off < idx[best].off) {
			best = j
		}
	}
	if best < 0 {
		if t.indexErr != nil {
			return nil, fmt.Errorf("cfi: pc %#x: %w (index incomplete: %v)", pc, ErrNoFDE, t.indexErr)
		}
		return nil, fmt.Errorf("cfi: pc %#x: %w", pc, ErrNoFDE)
	}
	return t.fdeAt(idx[best].off)
}

// hdrLookup finds pc's FDE through the header's table.
func (t *Table) hdrLookup(pc uint64) (*FDE, error) {
	off, ok := t.hdr.lookup(pc, t.addr)
	if !ok {
		return nil, fmt.Errorf("cfi: pc %#x: %w", pc, ErrNoFDE)
	}
	f, err := t.fdeAt(off)
	if err != nil {
		return nil, fmt.Errorf("cfi: pc %#x: .eh_frame_hdr entry: %w", pc, err)
	}
	if pc < f.Begin || pc >= f.End {
		return nil, fmt.Errorf("cfi: pc %#x: %w", pc, ErrNoFDE)
	}
	return f, nil
}

// buildIndex walks every entry once and sorts the FDEs by address. The
// index is made at its size, counted by a walk over the headers alone:
// grown by appending, it left twice its size behind in fresh pages.
func (t *Table) buildIndex() {
	var errs []error
	n := 0
	t.walk(func(entryHeader) { n++ }, new([]error))
	t.index = make([]indexEntry, 0, n)
	var f FDE
	t.walk(func(h entryHeader) {
		if err := t.parseFDEInto(h, &f); err != nil {
			errs = append(errs, err)
			return
		}
		if f.End > f.Begin {
			t.index = append(t.index, indexEntry{f.Begin, f.End, f.Offset})
		}
	}, &errs)
	sort.SliceStable(t.index, func(i, j int) bool { return t.index[i].begin < t.index[j].begin })
	t.indexErr = errors.Join(errs...)
}

// walk calls fn for every FDE header in section order, skipping CIEs and
// zero terminators. It stops at an entry whose length cannot be trusted;
// errors are appended to errs.
func (t *Table) walk(fn func(entryHeader), errs *[]error) {
	for off := uint64(0); off < uint64(len(t.data)); {
		h, err := t.parseHeader(off)
		if err != nil {
			*errs = append(*errs, err)
			if h.end <= off {
				// The length itself is bad: nothing after it can be found.
				return
			}
		} else if !h.zero && !h.isCIE {
			fn(h)
		}
		off = h.end
	}
}

// FDEs returns every FDE in section order, skipping CIEs and zero
// terminators. Corrupt entries are reported in the error (joined) and
// skipped; parsing continues with the next entry whenever the corrupt
// entry's length is usable.
func (t *Table) FDEs() ([]*FDE, error) {
	var fdes []*FDE
	var errs []error
	t.walk(func(h entryHeader) {
		f, err := t.parseFDE(h)
		if err != nil {
			errs = append(errs, err)
			return
		}
		fdes = append(fdes, f)
	}, &errs)
	return fdes, errors.Join(errs...)
}

// CIEs returns every CIE in section order (for the tables view).
func (t *Table) CIEs() ([]*CIE, error) {
	var cies []*CIE
	var errs []error
	for off := uint64(0); off < uint64(len(t.data)); {
		h, err := t.parseHeader(off)
		if err != nil {
			errs = append(errs, err)
			if h.end <= off {
				break
			}
		} else if !h.zero && h.isCIE {
			c, err := t.cieAt(off)
			if err != nil {
				errs = append(errs, err)
			} else {
				cies = append(cies, c)
			}
		}
		off = h.end
	}
	return cies, errors.Join(errs...)
}

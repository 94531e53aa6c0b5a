package elfx

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
)

// A unit whose DIEs use DW_FORM_ref_addr (LTO, dwz) is read by
// debug/dwarf over an abbreviation table in which those forms read as
// data of the same size (openUnit). That table used to be copied to
// offset 0 of a buffer of its own, and so the unit too, its header's
// abbreviation offset set to 0: the copies of gen-lto's 330 units (~100
// KB each) were 7% of its report's CPU and most of its peak RSS. The
// rewritten tables now sit at their own offsets in one buffer the size
// of .debug_abbrev, shared by every such unit, which debug/dwarf then
// reads in place of the section: the unit is given as it lies in
// .debug_info.

// refAbbrevs holds the rewritten abbreviation tables of a lazy index.
type refAbbrevs struct {
	mu sync.Mutex
	// buf is as long as .debug_abbrev; the bytes of each table in
	// tables are the section's, its DW_FORM_ref_addr rewritten; the
	// rest are zero.
	buf []byte
	// tables are the tables written into buf, sorted by start, not
	// overlapping.
	tables []refAbbrevTable
}

// refAbbrevTable is one rewritten table: its extent in .debug_abbrev
// and the form its DW_FORM_ref_addr read as.
type refAbbrevTable struct {
	start, end uint64
	form       byte
}

// section returns a copy of .debug_abbrev in which the table t at off
// (parsed by ensureAbbrevs, so inflated) reads its DW_FORM_ref_addr as
// form, for debug/dwarf to read it at its offset. ok is false where
// another table written before overlaps it otherwise than as the same
// table read the same way (crafted sections only): the caller then
// copies the table alone.
func (r *refAbbrevs) section(abbrev *sectionStream, off uint64, t abbrevInfo, form byte) (sec []byte, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i, found := slices.BinarySearchFunc(r.tables, off, func(a refAbbrevTable, start uint64) int {
		return cmp.Compare(a.start, start)
	})
	if found {
		same := r.tables[i] == refAbbrevTable{start: off, end: t.end, form: form}
		return r.buf, same
	}
	if i > 0 && r.tables[i-1].end > off || i < len(r.tables) && r.tables[i].start < t.end {
		return nil, false
	}
	if r.buf == nil {
		r.buf = make([]byte, len(abbrev.buf))
	}
	copy(r.buf[off:t.end], abbrev.buf[off:t.end])
	for _, p := range t.refAddr {
		r.buf[p] = form
	}
	r.tables = slices.Insert(r.tables, i, refAbbrevTable{start: off, end: t.end, form: form})
	return r.buf, true
}

// refAddrForm is the form of DW_FORM_ref_addr's size in the unit of
// header h.
func refAddrForm(h unitHeader) (byte, error) {
	switch h.refAddrSize() {
	case 4:
		return formData4, nil
	case 8:
		return formData8, nil
	}
	return 0, fmt.Errorf("DW_FORM_ref_addr of %d bytes", h.refAddrSize())
}

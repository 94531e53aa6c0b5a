// Package dynlist writes libunwind's dynamic unwind info structures
// (libunwind-dynamic.h) as a process that registered generated code holds
// them, for any target's byte order and word size (4 or 8): tests lay
// them out in target memory so that a core carries a registration list.
// Tests only.
package dynlist

import (
	"encoding/binary"
	"fmt"
)

// The layout is written from the C header, not from the product's
// reader, so that the two check each other:
//
//	unw_dyn_op_t:          int8 tag, int8 qp, int16 reg, int32 when, word val
//	unw_dyn_region_info_t: next, int32 insn_count, uint32 op_count, op[]
//	unw_dyn_proc_info_t:   name_ptr, handler, uint32 flags, int32 pad, regions
//	unw_dyn_table_info_t:  name_ptr, segbase, table_len, table_data
//	unw_dyn_info_t:        next, prev, start_ip, end_ip, gp, int32 format,
//	                       int32 pad, load_offset, union u
//	unw_dyn_info_list_t:   uint32 version, uint32 generation, first

// Operation tags (unw_dyn_operation_t).
const (
	DynStop = iota
	DynSaveReg
	DynSpillFPRel
	DynSpillSPRel
	DynAdd
	DynPopFrames
	DynLabelState
	DynCopyState
	DynAlias
)

// DynOp is an unw_dyn_op_t.
type DynOp struct {
	Tag  int8
	QP   int8
	Reg  int16
	When int32
	Val  uint64
}

// DynRegion is an unw_dyn_region_info_t.
type DynRegion struct {
	InsnCount int32
	Ops       []DynOp
}

// DynEntry is an unw_dyn_info_t with what it points at.
type DynEntry struct {
	Start, End, GP uint64
	Format         int32 // 0 DYNAMIC, 1 TABLE, 2 REMOTE_TABLE
	Name           string
	Regions        []DynRegion // DYNAMIC
	// The table formats: segment base, length in words, address.
	Segbase, TableLen, TableData uint64
}

// Writer lays the structures out in [next, end) of target memory
// through Put, with Word-byte words (4 or 8) in Order.
type Writer struct {
	Order     binary.ByteOrder
	Word      int
	Put       func(addr uint64, b []byte) bool
	next, end uint64
}

// NewWriter hands out [base, base+n).
func NewWriter(order binary.ByteOrder, word int, base, n uint64, put func(addr uint64, b []byte) bool) *Writer {
	return &Writer{Order: order, Word: word, Put: put, next: base, end: base + n}
}

// Alloc stores b aligned to 16 bytes and returns its address.
func (w *Writer) Alloc(b []byte) (uint64, error) {
	addr := (w.next + 15) &^ 15
	if addr+uint64(len(b)) > w.end {
		return 0, fmt.Errorf("dynamic info area full")
	}
	w.next = addr + uint64(len(b))
	if !w.Put(addr, b) {
		return 0, fmt.Errorf("cannot write [%#x, %#x)", addr, w.next)
	}
	return addr, nil
}

func (w *Writer) word(b []byte, v uint64) {
	if w.Word == 4 {
		w.Order.PutUint32(b, uint32(v))
		return
	}
	w.Order.PutUint64(b, v)
}

// WriteList writes the entries, linked in order, and the list header at
// list with generation gen.
func (w *Writer) WriteList(list uint64, gen uint32, entries []DynEntry) error {
	W := w.Word
	infoU := 5*W + 8 + W // after format, pad and load_offset
	if W == 8 {
		infoU = 56
	}
	infoSize := infoU + 2*W + 8 + W // the union's largest member, the proc info
	opSize := 8 + W
	addrs := make([]uint64, len(entries))
	blocks := make([][]byte, len(entries))
	for i, e := range entries {
		b := make([]byte, infoSize)
		w.word(b[2*W:], e.Start)
		w.word(b[3*W:], e.End)
		w.word(b[4*W:], e.GP)
		w.Order.PutUint32(b[5*W:], uint32(e.Format))
		if e.Name != "" {
			na, err := w.Alloc(append([]byte(e.Name), 0))
			if err != nil {
				return err
			}
			w.word(b[infoU:], na)
		}
		if e.Format == 0 {
			var next uint64
			for j := len(e.Regions) - 1; j >= 0; j-- {
				r := e.Regions[j]
				hdr := W + 8
				rb := make([]byte, hdr+opSize*len(r.Ops))
				w.word(rb[0:], next)
				w.Order.PutUint32(rb[W:], uint32(r.InsnCount))
				w.Order.PutUint32(rb[W+4:], uint32(len(r.Ops)))
				for k, op := range r.Ops {
					ob := rb[hdr+opSize*k:]
					ob[0], ob[1] = byte(op.Tag), byte(op.QP)
					w.Order.PutUint16(ob[2:], uint16(op.Reg))
					w.Order.PutUint32(ob[4:], uint32(op.When))
					w.word(ob[8:], op.Val)
				}
				ra, err := w.Alloc(rb)
				if err != nil {
					return err
				}
				next = ra
			}
			// regions follow name_ptr, handler, flags and pad.
			w.word(b[infoU+2*W+8:], next)
		} else {
			w.word(b[infoU+W:], e.Segbase)
			w.word(b[infoU+2*W:], e.TableLen)
			w.word(b[infoU+3*W:], e.TableData)
		}
		blocks[i] = b
		ia, err := w.Alloc(b)
		if err != nil {
			return err
		}
		addrs[i] = ia
	}
	for i, ia := range addrs {
		b := blocks[i]
		if i+1 < len(addrs) {
			w.word(b[0:], addrs[i+1])
		}
		if i > 0 {
			w.word(b[W:], addrs[i-1])
		}
		if !w.Put(ia, b) {
			return fmt.Errorf("cannot write entry at %#x", ia)
		}
	}
	hdr := make([]byte, 8+W)
	w.Order.PutUint32(hdr[4:], gen)
	if len(addrs) > 0 {
		w.word(hdr[8:], addrs[0])
	}
	if !w.Put(list, hdr) {
		return fmt.Errorf("cannot write the list header at %#x", list)
	}
	return nil
}

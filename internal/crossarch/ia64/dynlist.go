package ia64

import (
	"fmt"
)

// The libunwind-dynamic structures (libunwind-dynamic.h, LP64), as a
// process that registered generated code would hold them: the test lays
// them out in the interpreted machine's memory, so its core carries a
// registration list. The layout here is written from the C header, not
// from the product's reader, so that the two check each other.

// DynOp is an unw_dyn_op_t.
type DynOp struct {
	Tag  int8 // UNW_DYN_STOP=0, SAVE_REG, SPILL_FP_REL, SPILL_SP_REL, ADD, POP_FRAMES, LABEL_STATE, COPY_STATE, ALIAS
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
	// TABLE formats: the table's segment base, length in words and
	// address.
	Segbase, TableLen, TableData uint64
}

// Offsets in the LP64 structures.
const (
	listFirst   = 8  // unw_dyn_info_list_t: version, generation, first
	infoSize    = 88 // unw_dyn_info_t
	infoFormat  = 40
	infoLoadOff = 48
	infoU       = 56 // the union: name_ptr, handler|segbase, flags|table_len, regions|table_data
	regionOps   = 16 // unw_dyn_region_info_t: next, insn_count, op_count, op[]
	opSize      = 16
)

// WriteBytes stores b at addr; all of it must be in one writable region.
func (m *Machine) WriteBytes(addr uint64, b []byte) error {
	r := m.region(addr, uint64(len(b)))
	if r == nil {
		return fmt.Errorf("no region holds [%#x, %#x)", addr, addr+uint64(len(b)))
	}
	copy(r.Data[addr-r.Base:], b)
	return nil
}

// DynArea allocates from a piece of the machine's memory.
type DynArea struct {
	m         *Machine
	next, end uint64
}

// NewDynArea hands out [base, base+n).
func (m *Machine) NewDynArea(base, n uint64) *DynArea {
	return &DynArea{m: m, next: base, end: base + n}
}

// Put stores b 16-byte aligned and returns its address.
func (a *DynArea) Put(b []byte) (uint64, error) {
	addr := (a.next + 15) &^ 15
	if addr+uint64(len(b)) > a.end {
		return 0, fmt.Errorf("dynamic info area full")
	}
	a.next = addr + uint64(len(b))
	return addr, a.m.WriteBytes(addr, b)
}

// WriteDynList writes entries into the area and links them, in order,
// into the list header at list (generation gen). Entries that share a
// *DynRegion slice element are written once per entry: sharing is not
// what this tests.
func (m *Machine) WriteDynList(list uint64, gen uint32, a *DynArea, entries []DynEntry) error {
	o := m.Order
	addrs := make([]uint64, len(entries))
	blocks := make([][]byte, len(entries))
	for i, e := range entries {
		b := make([]byte, infoSize)
		o.PutUint64(b[16:], e.Start)
		o.PutUint64(b[24:], e.End)
		o.PutUint64(b[32:], e.GP)
		o.PutUint32(b[infoFormat:], uint32(e.Format))
		o.PutUint64(b[infoLoadOff:], 0)
		if e.Name != "" {
			na, err := a.Put(append([]byte(e.Name), 0))
			if err != nil {
				return err
			}
			o.PutUint64(b[infoU:], na)
		}
		if e.Format == 0 {
			// Regions are written last first, so each knows its next.
			var next uint64
			for j := len(e.Regions) - 1; j >= 0; j-- {
				r := e.Regions[j]
				rb := make([]byte, regionOps+opSize*len(r.Ops))
				o.PutUint64(rb[0:], next)
				o.PutUint32(rb[8:], uint32(r.InsnCount))
				o.PutUint32(rb[12:], uint32(len(r.Ops)))
				for k, op := range r.Ops {
					ob := rb[regionOps+opSize*k:]
					ob[0], ob[1] = byte(op.Tag), byte(op.QP)
					o.PutUint16(ob[2:], uint16(op.Reg))
					o.PutUint32(ob[4:], uint32(op.When))
					o.PutUint64(ob[8:], op.Val)
				}
				ra, err := a.Put(rb)
				if err != nil {
					return err
				}
				next = ra
			}
			o.PutUint64(b[infoU+24:], next) // regions, after name, handler, flags and pad
		} else {
			o.PutUint64(b[infoU+8:], e.Segbase)
			o.PutUint64(b[infoU+16:], e.TableLen)
			o.PutUint64(b[infoU+24:], e.TableData)
		}
		blocks[i] = b
		ia, err := a.Put(b)
		if err != nil {
			return err
		}
		addrs[i] = ia
	}
	// Link: next and prev pointers, then the header.
	for i, ia := range addrs {
		b := blocks[i]
		if i+1 < len(addrs) {
			o.PutUint64(b[0:], addrs[i+1])
		}
		if i > 0 {
			o.PutUint64(b[8:], addrs[i-1])
		}
		if err := m.WriteBytes(ia, b); err != nil {
			return err
		}
	}
	hdr := make([]byte, 16)
	o.PutUint32(hdr[4:], gen)
	if len(addrs) > 0 {
		o.PutUint64(hdr[listFirst:], addrs[0])
	}
	return m.WriteBytes(list, hdr)
}

// SlotOf is the slot index, from the bundle-aligned start, of the first
// instruction in [start, end) whose text begins with prefix (objdump's
// spelling: "adds r12=-48,r12"); -1 if there is none.
func (m *Machine) SlotOf(start, end uint64, prefix string) int32 {
	best := uint64(0)
	found := false
	for a, in := range m.Insns {
		if a >= start && a < end && len(in.Text) >= len(prefix) && in.Text[:len(prefix)] == prefix && (!found || a < best) {
			best, found = a, true
		}
	}
	if !found {
		return -1
	}
	return int32(3*((best&^0xf)-start)/16 + best&0xf)
}

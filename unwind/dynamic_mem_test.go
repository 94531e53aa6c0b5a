package unwind

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// memSpace is a test address space: byte segments at addresses.
type memSpace struct {
	order binary.ByteOrder
	ptr   int
	segs  map[uint64][]byte
	reads int
}

func newMemSpace(order binary.ByteOrder, ptr int) *memSpace {
	return &memSpace{order: order, ptr: ptr, segs: map[uint64][]byte{}}
}

func (m *memSpace) ByteOrder() binary.ByteOrder { return m.order }
func (m *memSpace) PtrSize() int                { return m.ptr }
func (m *memSpace) ReadMem(addr uint64, p []byte) error {
	m.reads++
	for base, b := range m.segs {
		if addr >= base && addr-base <= uint64(len(b)) && uint64(len(p)) <= uint64(len(b))-(addr-base) {
			copy(p, b[addr-base:])
			return nil
		}
	}
	return fmt.Errorf("read %d bytes at %#x: %w", len(p), addr, ErrUnavailable)
}
func (m *memSpace) FindProcInfo(uint64) (*ProcInfo, error)  { return nil, ErrNoInfo }
func (m *memSpace) ProcName(uint64) (string, uint64, error) { return "", 0, ErrNoInfo }
func (m *memSpace) DynInfoListAddr() (uint64, error)        { return 0, ErrNoInfo }

// dynWriter lays libunwind structures out in a memSpace the way a target
// process would hold them, for the pointer size and byte order given.
type dynWriter struct {
	m    *memSpace
	lay  dynLayout
	next uint64 // next free address
}

func newDynWriter(order binary.ByteOrder, ptr int) *dynWriter {
	lay, err := layoutFor(ptr)
	if err != nil {
		panic(err)
	}
	return &dynWriter{m: newMemSpace(order, ptr), lay: lay, next: 0x10000}
}

func (w *dynWriter) alloc(n int) (uint64, []byte) {
	addr := w.next
	b := make([]byte, n)
	w.m.segs[addr] = b
	w.next += uint64(n+15) &^ 15
	w.next += 16 // gaps: unmapped bytes between objects
	return addr, b
}

func (w *dynWriter) putWord(b []byte, v uint64) {
	if w.lay.w == 4 {
		w.m.order.PutUint32(b, uint32(v))
	} else {
		w.m.order.PutUint64(b, v)
	}
}

func (w *dynWriter) str(s string) uint64 {
	a, b := w.alloc(len(s) + 1)
	copy(b, s)
	return a
}

// region writes a region; next links it to the following one.
func (w *dynWriter) region(r *DynRegion, next uint64) uint64 {
	a, b := w.alloc(RegionInfoSize(len(r.Ops), w.lay.w))
	w.putWord(b[w.lay.rNext:], next)
	w.m.order.PutUint32(b[w.lay.rInsnCount:], uint32(r.InsnCount))
	w.m.order.PutUint32(b[w.lay.rOpCount:], uint32(len(r.Ops)))
	for i, op := range r.Ops {
		o := b[w.lay.rOps+i*w.lay.opSize:]
		o[0], o[1] = byte(op.Tag), byte(op.QP)
		w.m.order.PutUint16(o[2:], uint16(op.Reg))
		w.m.order.PutUint32(o[4:], uint32(op.When))
		w.putWord(o[8:], op.Val)
	}
	return a
}

// info writes an entry (without links) and returns its address.
func (w *dynWriter) info(d *DynInfo) uint64 {
	a, b := w.alloc(w.lay.infoSize)
	w.putWord(b[w.lay.startIP:], d.StartIP)
	w.putWord(b[w.lay.endIP:], d.EndIP)
	w.putWord(b[w.lay.gp:], d.GP)
	w.m.order.PutUint32(b[w.lay.format:], uint32(d.Format))
	w.putWord(b[w.lay.loadOffset:], d.LoadOffset)
	u := b[w.lay.u:]
	switch {
	case d.Proc != nil:
		w.putWord(u[w.lay.uName:], w.str(d.Proc.Name))
		w.putWord(u[w.lay.uHandler:], d.Proc.Handler)
		w.m.order.PutUint32(u[w.lay.uFlags:], d.Proc.Flags)
		var next uint64
		for i := len(d.Proc.Regions) - 1; i >= 0; i-- {
			next = w.region(d.Proc.Regions[i], next)
		}
		w.putWord(u[w.lay.uRegions:], next)
	case d.Table != nil:
		w.putWord(u, w.str(d.Table.Name))
		w.putWord(u[w.lay.w:], d.Table.Segbase)
		w.putWord(u[2*w.lay.w:], d.Table.TableLen)
		w.putWord(u[3*w.lay.w:], d.Table.TableData)
	}
	return a
}

// link sets an entry's next pointer.
func (w *dynWriter) link(entry, next uint64) {
	w.putWord(w.m.segs[entry][w.lay.next:], next)
}

// list writes a list header whose entries are infos in order.
func (w *dynWriter) list(gen uint32, infos ...*DynInfo) (listAddr uint64, entries []uint64) {
	for _, d := range infos {
		entries = append(entries, w.info(d))
	}
	for i := 0; i+1 < len(entries); i++ {
		w.link(entries[i], entries[i+1])
	}
	a, b := w.alloc(8 + w.lay.w)
	w.m.order.PutUint32(b[w.lay.listGen:], gen)
	if len(entries) > 0 {
		w.putWord(b[w.lay.listFirst:], entries[0])
	}
	return a, entries
}

func sortedKeys(m map[uint64][]byte) []uint64 {
	var ks []uint64
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}

package unwind

import (
	"errors"
	"fmt"
)

// DynLimits bound what ReadDynList reads from a target, whose memory may
// be corrupt or hostile: a list that cycles, counts in the billions,
// pointers anywhere.
type DynLimits struct {
	MaxEntries      int // entries of the list
	MaxRegions      int // regions of one procedure
	MaxOpsPerRegion int // op_count of one region
	MaxTotalOps     int // operations over the whole list
	MaxName         int // bytes of a name
}

// DefaultDynLimits are generous for real JITs and small enough that a
// corrupt list costs milliseconds.
var DefaultDynLimits = DynLimits{
	MaxEntries:      1 << 16,
	MaxRegions:      256,
	MaxOpsPerRegion: 4096,
	MaxTotalOps:     1 << 20,
	MaxName:         512,
}

// ErrDynList: the registration list in the target is corrupt. Warnings
// from ReadDynList wrap it.
var ErrDynList = errors.New("corrupt dynamic unwind info list")

// dynLayout holds the offsets of the libunwind structures for one
// pointer size (libunwind-dynamic.h; every member is naturally aligned,
// the header pads for 8-byte words).
type dynLayout struct {
	w int // unw_word_t and pointer size

	// unw_dyn_info_list_t
	listGen, listFirst int
	// unw_dyn_info_t
	next, startIP, endIP, gp, format, loadOffset, u, infoSize int
	// union members, relative to u: name_ptr, handler/segbase, flags/table_len, regions/table_data
	uName, uHandler, uFlags, uRegions int
	// unw_dyn_region_info_t
	rNext, rInsnCount, rOpCount, rOps int
	opSize                            int
}

func layoutFor(ptrSize int) (dynLayout, error) {
	if ptrSize != 4 && ptrSize != 8 {
		return dynLayout{}, fmt.Errorf("dynamic unwind info: pointer size %d: %w", ptrSize, ErrDynList)
	}
	w := ptrSize
	l := dynLayout{w: w, listGen: 4, listFirst: 8}
	l.next, l.startIP, l.endIP, l.gp = 0, 2*w, 3*w, 4*w
	l.format = 5 * w
	l.loadOffset = l.format + 8
	if w == 8 {
		l.loadOffset = 48
	}
	l.u = l.loadOffset + w
	// unw_dyn_proc_info_t: name_ptr, handler, uint32 flags, int32 pad,
	// regions; the table infos: name_ptr, segbase, table_len, table_data.
	l.uName, l.uHandler, l.uFlags, l.uRegions = 0, w, 2*w, 2*w+8
	if w == 4 {
		// table_len at 2*w, table_data at 3*w; flags at 8, pad, regions at 16.
		l.uRegions = 16
	}
	l.infoSize = l.u + max(l.uRegions+w, 4*w)
	l.rNext, l.rInsnCount, l.rOpCount, l.rOps = 0, w, w+4, w+8
	l.opSize = dynOpSize(w)
	return l, nil
}

// ReadDynList reads the registration list at listAddr (the address of
// _U_dyn_info_list) through as, in the target's byte order and pointer
// size. It never fails for a corrupt entry: the entries read so far are
// returned and what went wrong is in warnings (each wraps ErrDynList). err
// is set only when the list header itself cannot be read.
func ReadDynList(as AddrSpace, listAddr uint64, lim DynLimits) (x *DynIndex, warnings []error, err error) {
	lay, err := layoutFor(as.PtrSize())
	if err != nil {
		return nil, nil, err
	}
	r := &dynReader{as: as, lay: lay, lim: lim, regions: map[uint64]*DynRegion{}}
	hdr := make([]byte, lay.listFirst+lay.w)
	if err := as.ReadMem(listAddr, hdr); err != nil {
		return nil, nil, fmt.Errorf("dynamic unwind info list at %#x: %w", listAddr, err)
	}
	order := as.ByteOrder()
	version, gen := order.Uint32(hdr[0:]), order.Uint32(hdr[lay.listGen:])
	next := r.word(hdr[lay.listFirst:])
	var infos []*DynInfo
	seen := map[uint64]bool{}
	warn := func(format string, args ...any) {
		warnings = append(warnings, fmt.Errorf("dynamic unwind info list at %#x: "+format+": %w", append(append([]any{listAddr}, args...), ErrDynList)...))
	}
	for next != 0 {
		if seen[next] {
			warn("entry %#x appears twice (a cycle)", next)
			break
		}
		if len(seen) >= lim.MaxEntries {
			warn("more than %d entries", lim.MaxEntries)
			break
		}
		seen[next] = true
		d, nxt, err := r.info(next)
		if err != nil {
			warn("entry %#x: %v", next, err)
		}
		if d != nil {
			infos = append(infos, d)
		}
		next = nxt
	}
	x = NewDynIndex(infos, gen)
	x.Version = version
	return x, warnings, nil
}

// dynReader decodes entries of one list read.
type dynReader struct {
	as      AddrSpace
	lay     dynLayout
	lim     DynLimits
	ops     int                   // operations read so far
	regions map[uint64]*DynRegion // by address: region chains may be shared
}

func (r *dynReader) word(b []byte) uint64 {
	if r.lay.w == 4 {
		return uint64(r.as.ByteOrder().Uint32(b))
	}
	return r.as.ByteOrder().Uint64(b)
}

// info decodes the entry at addr. next is the entry's link, valid even
// when the entry itself is rejected (so the walk goes on).
func (r *dynReader) info(addr uint64) (d *DynInfo, next uint64, err error) {
	lay := r.lay
	b := make([]byte, lay.infoSize)
	if err := r.as.ReadMem(addr, b); err != nil {
		return nil, 0, err
	}
	order := r.as.ByteOrder()
	next = r.word(b[lay.next:])
	d = &DynInfo{
		Addr:       addr,
		StartIP:    r.word(b[lay.startIP:]),
		EndIP:      r.word(b[lay.endIP:]),
		GP:         r.word(b[lay.gp:]),
		Format:     DynFormat(int32(order.Uint32(b[lay.format:]))),
		LoadOffset: r.word(b[lay.loadOffset:]),
	}
	if d.EndIP <= d.StartIP {
		return nil, next, fmt.Errorf("empty or inverted range [%#x, %#x)", d.StartIP, d.EndIP)
	}
	u := b[lay.u:]
	switch d.Format {
	case DynFormatDynamic:
		p := &DynProcInfo{
			NameAddr: r.word(u[lay.uName:]),
			Handler:  r.word(u[lay.uHandler:]),
			Flags:    order.Uint32(u[lay.uFlags:]),
		}
		p.Name = r.name(p.NameAddr)
		d.Proc = p
		regs, err := r.regionChain(r.word(u[lay.uRegions:]))
		p.Regions = regs
		if err != nil {
			// Keep the name (a frame can still be named) but not half a
			// description: the regions up to the bad one are dropped too.
			p.Regions = nil
			d.Err = fmt.Errorf("procedure %q: %w", p.Name, err)
			return d, next, d.Err
		}
	case DynFormatTable, DynFormatRemoteTable:
		t := &DynTableInfo{
			NameAddr:  r.word(u[0:]),
			Segbase:   r.word(u[lay.w:]),
			TableLen:  r.word(u[2*lay.w:]),
			TableData: r.word(u[3*lay.w:]),
		}
		t.Name = r.name(t.NameAddr)
		d.Table = t
	default:
		return nil, next, fmt.Errorf("unknown format %d", int32(d.Format))
	}
	return d, next, nil
}

// regionChain decodes the regions starting at addr.
func (r *dynReader) regionChain(addr uint64) ([]*DynRegion, error) {
	var out []*DynRegion
	seen := map[uint64]bool{}
	for addr != 0 {
		if seen[addr] {
			return out, fmt.Errorf("region %#x appears twice (a cycle)", addr)
		}
		if len(out) >= r.lim.MaxRegions {
			return out, fmt.Errorf("more than %d regions", r.lim.MaxRegions)
		}
		seen[addr] = true
		reg, next, err := r.region(addr)
		if err != nil {
			return out, fmt.Errorf("region %#x: %w", addr, err)
		}
		out = append(out, reg)
		addr = next
	}
	return out, nil
}

func (r *dynReader) region(addr uint64) (*DynRegion, uint64, error) {
	lay := r.lay
	hdr := make([]byte, lay.rOps)
	if err := r.as.ReadMem(addr, hdr); err != nil {
		return nil, 0, err
	}
	order := r.as.ByteOrder()
	next := r.word(hdr[lay.rNext:])
	if reg, ok := r.regions[addr]; ok {
		return reg, next, nil
	}
	count := order.Uint32(hdr[lay.rOpCount:])
	if int64(count) > int64(r.lim.MaxOpsPerRegion) {
		return nil, 0, fmt.Errorf("op_count %d exceeds %d", count, r.lim.MaxOpsPerRegion)
	}
	if r.ops+int(count) > r.lim.MaxTotalOps {
		return nil, 0, fmt.Errorf("more than %d operations in the list", r.lim.MaxTotalOps)
	}
	reg := &DynRegion{InsnCount: int32(order.Uint32(hdr[lay.rInsnCount:]))}
	if count > 0 {
		// Read the whole op array at once: the count is bounded above and
		// the read fails unless every byte is in the target.
		buf := make([]byte, int(count)*lay.opSize)
		if err := r.as.ReadMem(addr+uint64(lay.rOps), buf); err != nil {
			return nil, 0, fmt.Errorf("%d operations: %w", count, err)
		}
		r.ops += int(count)
		reg.Ops = make([]DynOp, 0, count)
		for i := 0; i < int(count); i++ {
			o := buf[i*lay.opSize:]
			op := DynOp{
				Tag:  DynOpTag(int8(o[0])),
				QP:   int8(o[1]),
				Reg:  int16(order.Uint16(o[2:])),
				When: int32(order.Uint32(o[4:])),
				Val:  r.word(o[8:]),
			}
			if lay.w == 4 && (op.Tag == DynSpillFPRel || op.Tag == DynSpillSPRel || op.Tag == DynAdd) {
				op.Val = uint64(int64(int32(uint32(op.Val)))) // a signed unw_word_t
			}
			reg.Ops = append(reg.Ops, op)
			if op.Tag == DynStop {
				break
			}
		}
		reg.SortOps()
	}
	r.regions[addr] = reg
	return reg, next, nil
}

// name reads a NUL-terminated string of at most MaxName bytes; what can
// be read of it is kept.
func (r *dynReader) name(addr uint64) string {
	if addr == 0 {
		return ""
	}
	var out []byte
	var chunk [64]byte
	for len(out) < r.lim.MaxName {
		n := min(len(chunk), r.lim.MaxName-len(out))
		if r.as.ReadMem(addr+uint64(len(out)), chunk[:n]) != nil {
			// The string may end near the end of a mapping: byte by byte.
			for i := 0; i < n; i++ {
				if r.as.ReadMem(addr+uint64(len(out)), chunk[:1]) != nil || chunk[0] == 0 {
					return string(out)
				}
				out = append(out, chunk[0])
			}
			continue
		}
		for i := 0; i < n; i++ {
			if chunk[i] == 0 {
				return string(append(out, chunk[:i]...))
			}
		}
		out = append(out, chunk[:n]...)
	}
	return string(out)
}

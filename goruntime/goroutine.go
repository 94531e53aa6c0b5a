package goruntime

import "fmt"

// Goroutine is one g as the runtime left it.
type Goroutine struct {
	ID     uint64
	Status Status
	// WaitReason says what a waiting goroutine waits for ("chan
	// receive"), "" when it is not waiting or the reason is unknown.
	WaitReason string
	// Addr is the g's address.
	Addr uint64
	// StackLo and StackHi bound its stack.
	StackLo, StackHi uint64
	// M is the address of the m (OS thread) running it, 0 for none.
	M uint64
	// PC, SP, BP, LR are its saved registers (g.sched): where a
	// goroutine that is not running resumes. PC is a return address.
	// BP and LR are 0 where the arch's gobuf has none.
	PC, SP, BP, LR uint64
	// SyscallPC, SyscallSP, SyscallBP: where a goroutine in a system
	// call entered it (0 otherwise).
	SyscallPC, SyscallSP, SyscallBP uint64
	// GoPC is the pc after the go statement that created it (0 for
	// none), ParentID the goroutine that ran that statement (0 where
	// the runtime does not record it: Go 1.20).
	GoPC, ParentID uint64
	// WaitSince is the runtime's nanotime when the goroutine was first
	// seen blocked (the GC sets it), 0 if never.
	WaitSince int64
	// LockedM is the m (OS thread) it is locked to (LockOSThread), 0
	// for none.
	LockedM uint64
	// LabelsAddr is g.labels, where its pprof labels are (0: none):
	// Reader.Labels reads them.
	LabelsAddr uint64
}

// State is what the runtime's traceback prints in brackets after the
// goroutine's id: the wait reason of a waiting goroutine, else its
// status.
func (g *Goroutine) State() string {
	if g.Status == StatusWaiting && g.WaitReason != "" {
		return g.WaitReason
	}
	return g.Status.String()
}

// Goroutines reads every goroutine that is not dead from runtime.allgs,
// in the runtime's order. A g that cannot be read is left out and named
// in warnings; a list past MaxGoroutines is cut, with a warning.
func (r *Reader) Goroutines(mem Memory) (gs []Goroutine, warnings []string) {
	ptr := uint64(r.b.PtrSize)
	allgs := r.b.Symbols[SymAllgs] + r.b.Bias
	base, err := r.word(mem, allgs)
	if err != nil {
		return nil, []string{fmt.Sprintf("goroutines: %s at %#x: %v", SymAllgs, allgs, err)}
	}
	n, err := r.word(mem, allgs+ptr)
	if err != nil {
		return nil, []string{fmt.Sprintf("goroutines: %s length: %v", SymAllgs, err)}
	}
	if n > MaxGoroutines {
		warnings = append(warnings, fmt.Sprintf("goroutines: %s has %d entries; reading the first %d", SymAllgs, n, MaxGoroutines))
		n = MaxGoroutines
	}
	buf := make([]byte, r.layout.size)
	ptrs := make([]byte, allgsChunk*ptr)
	unreadable := 0
	for i := uint64(0); i < n; i += allgsChunk {
		// The pointers a chunk at a time: an array the core lacks
		// ends the list at once, whatever length it claims.
		k := min(allgsChunk, n-i)
		if err := mem.ReadMem(base+i*ptr, ptrs[:k*ptr]); err != nil {
			warnings = append(warnings, fmt.Sprintf("goroutines: %s entries %d to %d of %d at %#x: %v", SymAllgs, i, i+k, n, base+i*ptr, err))
			break
		}
		for j := uint64(0); j < k; j++ {
			gp := r.decodeWord(ptrs[j*ptr : (j+1)*ptr])
			if err := mem.ReadMem(gp, buf); err != nil {
				if unreadable++; unreadable <= maxWarnings {
					warnings = append(warnings, fmt.Sprintf("goroutines: g %d of %d at %#x: %v", i+j, n, gp, err))
				}
				continue
			}
			g := r.decode(gp, buf)
			if g.Status.Dead() {
				continue
			}
			if g.Status == StatusWaiting {
				g.WaitReason = r.waitReason(mem, buf[r.layout.waitReason])
			}
			gs = append(gs, g)
		}
	}
	if unreadable > maxWarnings {
		warnings = append(warnings, fmt.Sprintf("goroutines: %d more g's unreadable", unreadable-maxWarnings))
	}
	return gs, warnings
}

// maxWarnings bounds the warnings for unreadable g's.
const maxWarnings = 8

// allgsChunk is how many of allgs' pointers are read at once.
const allgsChunk = 512

// decode reads the fields of the g at addr from its bytes, buf.
func (r *Reader) decode(addr uint64, buf []byte) Goroutine {
	l := &r.layout
	w := func(off int64) uint64 {
		if off < 0 {
			return 0
		}
		return r.decodeWord(buf[off : off+int64(r.b.PtrSize)])
	}
	return Goroutine{
		ID:         r.b.Order.Uint64(buf[l.goid:]),
		Status:     Status(r.b.Order.Uint32(buf[l.status:])) &^ statusScan,
		Addr:       addr,
		StackLo:    w(l.stackLo),
		StackHi:    w(l.stackHi),
		M:          w(l.m),
		PC:         w(l.schedPC),
		SP:         w(l.schedSP),
		BP:         w(l.schedBP),
		LR:         w(l.schedLR),
		SyscallPC:  w(l.syscallPC),
		SyscallSP:  w(l.syscallSP),
		SyscallBP:  w(l.syscallBP),
		GoPC:       w(r.info.gopc),
		ParentID:   r.u64(buf, r.info.parentGoid),
		WaitSince:  int64(r.u64(buf, r.info.waitsince)),
		LockedM:    w(r.info.lockedm),
		LabelsAddr: w(r.info.labels),
	}
}

// u64 is the 8-byte field at off in buf, 0 where the layout has none.
func (r *Reader) u64(buf []byte, off int64) uint64 {
	if off < 0 || off+8 > int64(len(buf)) {
		return 0
	}
	return r.b.Order.Uint64(buf[off:])
}

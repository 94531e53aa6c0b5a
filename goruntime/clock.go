package goruntime

// The runtime prints how long a goroutine has waited ("[chan receive,
// 3 minutes]") as nanotime() at the crash minus g.waitsince. A core has
// no clock: the latest of the monotonic times the runtime itself wrote
// stands in for nanotime() at the crash. sysmon moves sched.lastpoll to
// its own nanotime() every 10ms while the program runs, and the
// scheduler sets it on each network poll; the GC's start (work.tstart)
// and sysmon's per-P ticks are later on an idle program. The estimate
// is never after the crash: a count of minutes may be one less than the
// runtime would print, never more.

// Symbols the clocks are read from.
const (
	SymSched = "runtime.sched"
	SymAllp  = "runtime.allp"
	SymWork  = "runtime.work"
)

// infoSymbols are the symbols this file and the fatal error's reader
// need, added to SymbolNames.
var infoSymbols = []string{SymSched, SymAllp, SymWork, SymThrowClosure, SymFatalClosure}

// maxProcs bounds the P's read from runtime.allp.
const maxProcs = 4096

// Now is the latest nanotime the runtime recorded (see above), 0 when
// none can be read.
func (r *Reader) Now(mem Memory) int64 {
	l := &r.info
	var now int64
	later := func(addr uint64, ok bool) {
		if !ok {
			return
		}
		var b [8]byte
		if mem.ReadMem(addr, b[:]) == nil {
			now = max(now, int64(r.b.Order.Uint64(b[:])))
		}
	}
	sched, okSched := r.b.Symbols[SymSched]
	later(sched+r.b.Bias+uint64(l.schedLastpoll), okSched && l.schedLastpoll >= 0)
	work, okWork := r.b.Symbols[SymWork]
	later(work+r.b.Bias+uint64(l.workTstart), okWork && l.workTstart >= 0)
	allp, ok := r.b.Symbols[SymAllp]
	if !ok || l.pSysmontick < 0 {
		return now
	}
	base, err1 := r.word(mem, allp+r.b.Bias)
	n, err2 := r.word(mem, allp+r.b.Bias+uint64(r.b.PtrSize))
	if err1 != nil || err2 != nil {
		return now
	}
	for i := uint64(0); i < min(n, maxProcs); i++ {
		p, err := r.word(mem, base+i*uint64(r.b.PtrSize))
		if err != nil {
			break
		}
		if p == 0 {
			continue
		}
		tick := p + uint64(l.pSysmontick)
		later(tick+uint64(l.tickSchedwhen), l.tickSchedwhen >= 0)
		later(tick+uint64(l.tickSyscallwhen), l.tickSyscallwhen >= 0)
	}
	return now
}

// WaitMinutes is how many whole minutes g has waited at now (Now's),
// as the runtime's traceback counts them; ok is false when the runtime
// recorded no time for it (it is not waiting or in a system call, or
// no GC has seen it blocked) or now is unknown.
func WaitMinutes(g *Goroutine, now int64) (minutes int64, ok bool) {
	if g.Status != StatusWaiting && g.Status != StatusSyscall || g.WaitSince == 0 || now == 0 {
		return 0, false
	}
	if now < g.WaitSince {
		return 0, true // the clock read is older than the GC that saw it
	}
	return (now - g.WaitSince) / 60e9, true
}

// ThreadID is the OS thread id (m.procid) of the m at addr, ok false
// when it cannot be read.
func (r *Reader) ThreadID(mem Memory, m uint64) (tid uint64, ok bool) {
	if m == 0 || r.info.mProcid < 0 {
		return 0, false
	}
	var b [8]byte
	if mem.ReadMem(m+uint64(r.info.mProcid), b[:]) != nil {
		return 0, false
	}
	tid = r.b.Order.Uint64(b[:])
	return tid, tid != 0
}

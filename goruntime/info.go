package goruntime

import "debug/dwarf"

// infoLayout is where the fields that describe a goroutine beyond its
// stack sit: who created it, since when it waits, the thread it runs on
// or is locked to, its pprof labels, and the runtime's clocks that say
// how late the core was written. Each offset is -1 where the release's
// runtime has no such field (Go 1.20 has no g.parentGoid): that fact is
// then not reported, and nothing else changes.
type infoLayout struct {
	gopc, parentGoid, waitsince, lockedm, labels int64 // in runtime.g
	mProcid                                      int64 // in runtime.m
	mG0                                          int64 // in runtime.m: its system stack's g
	// The clocks: sched.lastpoll, p.sysmontick.{schedwhen,syscallwhen},
	// work.tstart (the last GC's start, which g.waitsince is set from).
	schedLastpoll, pSysmontick, tickSchedwhen, tickSyscallwhen, workTstart int64
	// labelsAs says how g.labels points to the labels.
	labelsAs labelsRepr
	// The classic map's header (Go 1.20 to 1.23): count, B, buckets.
	hmapCount, hmapB, hmapBuckets int64
}

// labelsRepr is how a release represents a goroutine's pprof labels.
type labelsRepr int

const (
	// labelsNone: the DWARF has none of the types labels are built of
	// (a program that never sets labels).
	labelsNone labelsRepr = iota
	// labelsSlice (Go 1.24 on): g.labels points to a struct whose first
	// field is a []struct{key, value string}, sorted by key
	// (runtime/pprof.labelMap, internal/runtime/pprof/label.Set).
	labelsSlice
	// labelsMap (Go 1.20 to 1.23): g.labels points to a
	// runtime/pprof.labelMap, a map[string]string.
	labelsMap
)

// infoStructs are the struct types infoLayoutOf reads.
var infoStructs = []string{"runtime.m", "runtime.schedt", "runtime.p", "runtime.sysmontick", "runtime.workType",
	"runtime.hmap", "runtime/pprof.labelMap", "internal/runtime/pprof/label.Set"}

// infoLayoutOf is the infoLayout of the struct types found.
func infoLayoutOf(structs map[string]*dwarf.StructType) infoLayout {
	l := infoLayout{gopc: -1, parentGoid: -1, waitsince: -1, lockedm: -1, labels: -1, mProcid: -1, mG0: -1,
		schedLastpoll: -1, pSysmontick: -1, tickSchedwhen: -1, tickSyscallwhen: -1, workTstart: -1,
		hmapCount: -1, hmapB: -1, hmapBuckets: -1}
	off := func(name, field string) int64 {
		if st := structs[name]; st != nil {
			return fieldOffset(st, field)
		}
		return -1
	}
	g := structs["runtime.g"]
	if g == nil {
		return l
	}
	inG := func(field string) int64 {
		o := fieldOffset(g, field)
		if o > g.ByteSize-8 {
			return -1 // read from the g's bytes: must lie in them
		}
		return o
	}
	l.gopc, l.parentGoid, l.waitsince, l.lockedm, l.labels = inG("gopc"), inG("parentGoid"), inG("waitsince"), inG("lockedm"), inG("labels")
	l.mProcid = off("runtime.m", "procid")
	l.mG0 = off("runtime.m", "g0")
	l.schedLastpoll = off("runtime.schedt", "lastpoll")
	l.pSysmontick = off("runtime.p", "sysmontick")
	l.tickSchedwhen, l.tickSyscallwhen = off("runtime.sysmontick", "schedwhen"), off("runtime.sysmontick", "syscallwhen")
	l.workTstart = off("runtime.workType", "tstart")
	switch {
	case structs["runtime/pprof.labelMap"] != nil || structs["internal/runtime/pprof/label.Set"] != nil:
		l.labelsAs = labelsSlice
	case structs["runtime.hmap"] != nil:
		l.labelsAs = labelsMap
		l.hmapCount, l.hmapB, l.hmapBuckets = off("runtime.hmap", "count"), off("runtime.hmap", "B"), off("runtime.hmap", "buckets")
		if l.hmapCount < 0 || l.hmapB < 0 || l.hmapBuckets < 0 {
			l.labelsAs = labelsNone
		}
	}
	return l
}

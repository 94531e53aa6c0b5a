package goruntime

import (
	"slices"
	"strings"
)

// Label is one pprof label of a goroutine (runtime/pprof.Do,
// SetGoroutineLabels).
type Label struct{ Key, Value string }

// Bounds on the labels read: a goroutine carries a handful.
const (
	maxLabels       = 64
	maxLabelBuckets = 16 // 2^B buckets of a map of at most maxLabels
	mapBucketCount  = 8  // entries in a classic map bucket
	minTopHash      = 5  // tophash of a full slot
)

// Labels reads g's pprof labels, sorted by key; nil when it has none or
// they cannot be read. How g.labels points to them changed in Go 1.24
// (labelsRepr); the DWARF says which this program has.
func (r *Reader) Labels(mem Memory, g *Goroutine) []Label {
	if g.LabelsAddr == 0 {
		return nil
	}
	var out []Label
	switch r.info.labelsAs {
	case labelsSlice:
		out = r.sliceLabels(mem, g.LabelsAddr)
	case labelsMap:
		out = r.mapLabels(mem, g.LabelsAddr)
	}
	slices.SortFunc(out, func(a, b Label) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// sliceLabels reads a []struct{key, value string} whose header is at
// addr.
func (r *Reader) sliceLabels(mem Memory, addr uint64) []Label {
	ptr := uint64(r.b.PtrSize)
	base, err1 := r.word(mem, addr)
	n, err2 := r.word(mem, addr+ptr)
	if err1 != nil || err2 != nil || n > maxLabels {
		return nil
	}
	var out []Label
	for i := uint64(0); i < n; i++ {
		e := base + i*4*ptr
		k, ok1 := r.str(mem, e)
		v, ok2 := r.str(mem, e+2*ptr)
		if !ok1 || !ok2 {
			return nil
		}
		out = append(out, Label{k, v})
	}
	return out
}

// mapLabels reads a map[string]string (a *hmap at *addr) of the classic
// map implementation: 2^B buckets of 8 tophash bytes, 8 keys, 8 values
// and an overflow pointer.
func (r *Reader) mapLabels(mem Memory, addr uint64) []Label {
	l := &r.info
	ptr := uint64(r.b.PtrSize)
	h, err := r.word(mem, addr)
	if err != nil || h == 0 {
		return nil
	}
	var b [1]byte
	if mem.ReadMem(h+uint64(l.hmapB), b[:]) != nil || 1<<b[0] > maxLabelBuckets {
		return nil
	}
	buckets, err := r.word(mem, h+uint64(l.hmapBuckets))
	if err != nil {
		return nil
	}
	str := 2 * ptr
	keys := uint64(mapBucketCount)
	vals := keys + mapBucketCount*str
	overflow := vals + mapBucketCount*str
	size := overflow + ptr
	var out []Label
	var tophash [mapBucketCount]byte
	for i := uint64(0); i < 1<<b[0]; i++ {
		// A bucket and its overflow chain, bounded: a cycle or a long
		// chain in bad memory ends at maxLabels entries' worth.
		for bk, hops := buckets+i*size, 0; bk != 0 && hops < maxLabels/mapBucketCount+1; hops++ {
			if mem.ReadMem(bk, tophash[:]) != nil {
				return out
			}
			for j := uint64(0); j < mapBucketCount; j++ {
				if tophash[j] < minTopHash {
					continue
				}
				k, ok1 := r.str(mem, bk+keys+j*str)
				v, ok2 := r.str(mem, bk+vals+j*str)
				if ok1 && ok2 && len(out) < maxLabels {
					out = append(out, Label{k, v})
				}
			}
			bk, err = r.word(mem, bk+overflow)
			if err != nil {
				break
			}
		}
	}
	return out
}

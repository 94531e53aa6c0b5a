package unwind

import (
	"errors"
	"sort"
	"sync"
)

// DynList is an in-process registration list (libunwind's
// _U_dyn_info_list with _U_dyn_register and _U_dyn_cancel): a doubly
// linked list, newest first, with a generation counter that every
// registration and cancellation bumps. Lookups keep an index built for one
// generation and rebuild it when the generation has moved, so a cached
// answer never outlives the registration it came from.
type DynList struct {
	mu         sync.Mutex
	first      *DynInfo
	n          int
	generation uint32

	index *DynIndex // built for index.Generation
}

// ErrDynRegistered: the entry is already in a list.
var ErrDynRegistered = errors.New("dynamic unwind info already registered")

// ErrDynNotRegistered: the entry is not in this list.
var ErrDynNotRegistered = errors.New("dynamic unwind info not registered here")

// Register adds d at the head of the list in O(1). Its operations are
// sorted once here (only regions that need it), so lookups never sort.
func (l *DynList) Register(d *DynInfo) error {
	if d.Proc != nil {
		for _, r := range d.Proc.Regions {
			r.SortOps()
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if d.list != nil {
		return ErrDynRegistered
	}
	d.list, d.prev, d.next = l, nil, l.first
	if l.first != nil {
		l.first.prev = d
	}
	l.first = d
	l.n++
	l.generation++
	return nil
}

// Cancel removes d from the list in O(1).
func (l *DynList) Cancel(d *DynInfo) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if d.list != l {
		return ErrDynNotRegistered
	}
	if d.prev != nil {
		d.prev.next = d.next
	} else {
		l.first = d.next
	}
	if d.next != nil {
		d.next.prev = d.prev
	}
	d.list, d.next, d.prev = nil, nil, nil
	l.n--
	l.generation++
	return nil
}

// Generation is the list's generation counter.
func (l *DynList) Generation() uint32 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.generation
}

// Len is the number of registered entries.
func (l *DynList) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// Entries returns the registered entries, newest first.
func (l *DynList) Entries() []*DynInfo {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]*DynInfo, 0, l.n)
	for d := l.first; d != nil; d = d.next {
		out = append(out, d)
	}
	return out
}

// Index returns the lookup index of the current generation, building it
// when registrations changed since the last one.
func (l *DynList) Index() *DynIndex {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.index != nil && l.index.Generation == l.generation {
		return l.index
	}
	infos := make([]*DynInfo, 0, l.n)
	for d := l.first; d != nil; d = d.next {
		infos = append(infos, d)
	}
	l.index = NewDynIndex(infos, l.generation)
	return l.index
}

// Lookup returns the entry covering ip, newest registration first.
func (l *DynList) Lookup(ip uint64) *DynInfo { return l.Index().Lookup(ip) }

// DynIndex is a snapshot of a registration list for one generation,
// searchable by address. Where entries overlap, the one earlier in the
// list (the newer registration) wins, as in libunwind's linear search.
type DynIndex struct {
	Generation uint32
	Version    uint32
	// Infos in list order.
	Infos []*DynInfo

	byStart []int // indexes into Infos, sorted by StartIP
	maxLen  uint64
}

// NewDynIndex indexes infos (in list order) for generation gen.
func NewDynIndex(infos []*DynInfo, gen uint32) *DynIndex {
	x := &DynIndex{Generation: gen, Infos: infos, byStart: make([]int, 0, len(infos))}
	for i, d := range infos {
		if d.EndIP <= d.StartIP {
			continue
		}
		x.byStart = append(x.byStart, i)
		x.maxLen = max(x.maxLen, d.EndIP-d.StartIP)
	}
	sort.SliceStable(x.byStart, func(i, j int) bool { return infos[x.byStart[i]].StartIP < infos[x.byStart[j]].StartIP })
	return x
}

// Lookup returns the entry covering ip, or nil.
func (x *DynIndex) Lookup(ip uint64) *DynInfo {
	if x == nil {
		return nil
	}
	k := sort.Search(len(x.byStart), func(i int) bool { return x.Infos[x.byStart[i]].StartIP > ip })
	best := -1
	// Entries starting at or below ip, walking down while one could still
	// reach ip (no entry is longer than maxLen).
	for j := k - 1; j >= 0; j-- {
		i := x.byStart[j]
		d := x.Infos[i]
		if ip-d.StartIP >= x.maxLen {
			break
		}
		if d.Covers(ip) && (best < 0 || i < best) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	return x.Infos[best]
}

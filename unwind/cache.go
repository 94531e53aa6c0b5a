package unwind

import (
	"errors"
	"sync"
	"sync/atomic"
)

// CachePolicy is libunwind's unw_caching_policy_t.
type CachePolicy int

const (
	// CacheGlobal caches unwind rules per address space, shared by all
	// cursors and goroutines (the default).
	CacheGlobal CachePolicy = iota
	// CacheNone recomputes everything on every step.
	CacheNone
)

// Cache keeps what arch steppers computed for an address (framehop's
// "rule for this address"), so that the hot path of a step is "look up
// rule, apply rule". One Cache belongs to one address space; its cursors
// share it, on any goroutines.
//
// Each kind of rule has its own table (a RuleCache), and so do the
// procedure lookups of FindProcInfo. A table is a 2-way set-associative
// array of atomic pointers to immutable entries: a lookup takes no lock
// and does not allocate, and memory stays bounded whatever the core (a
// table starts at 128 entries and grows while it evicts, to at most
// MaxRuleEntries). Storing an entry, FlushCache and SetPolicy take a
// mutex; they happen on misses, which cost far more.
//
// A rule is keyed by one address of the frame (its lookup address, or
// its pc) and must depend on nothing else: not on the frame's registers
// (IA-64 does not cache scripts that read the predicates). An arch package declares one
// RuleKind per rule type it caches and reaches that kind's table through
// it:
//
//	// rule is what the unwinder knows about one lookup address: a small
//	// value (a few words) or a pointer.
//	type rule struct{ ... }
//
//	var rules = unwind.NewRuleKind[rule]()
//
//	func ruleFor(as unwind.AddrSpace, cache *unwind.Cache, lpc uint64) rule {
//		rc := rules.In(cache) // nil under CacheNone: misses, drops puts
//		if r, ok := rc.Get(lpc); ok {
//			return r
//		}
//		r := computeRule(as, cache, lpc) // cache.FindProcInfo, the FDE's row, ...
//		rc.Put(lpc, r)
//		return r
//	}
type Cache struct {
	policy atomic.Int32 // a CachePolicy

	// mu serializes what writes: Put, FlushCache, SetPolicy, and the
	// creation of a kind's table.
	mu    sync.Mutex
	kinds [maxRuleKinds]atomic.Value // *RuleCache[R] of RuleKind id i
	procs *RuleCache[procResult]
}

// procResult is a cached FindProcInfo answer: the procedure, or a
// negative answer (an error wrapping ErrNoInfo).
type procResult struct {
	pi  *ProcInfo
	err error
}

// NewCache returns an empty cache with the given policy.
func NewCache(policy CachePolicy) *Cache {
	c := &Cache{}
	c.policy.Store(int32(policy))
	c.procs = &RuleCache[procResult]{owner: c}
	return c
}

// Policy reports the cache's policy.
func (c *Cache) Policy() CachePolicy {
	if c == nil {
		return CacheNone
	}
	return CachePolicy(c.policy.Load())
}

// caching reports whether lookups may use the cache.
func (c *Cache) caching() bool {
	return c != nil && CachePolicy(c.policy.Load()) != CacheNone
}

// SetPolicy changes the policy; switching to CacheNone drops everything.
func (c *Cache) SetPolicy(p CachePolicy) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.policy.Store(int32(p))
	if p == CacheNone {
		c.flushLocked(0, 0)
	}
}

// FindProcInfo looks ip up in as, through the cache. Negative answers
// (errors wrapping ErrNoInfo) are cached too, with their message; other
// errors are not.
func (c *Cache) FindProcInfo(as AddrSpace, ip uint64) (*ProcInfo, error) {
	var procs *RuleCache[procResult]
	if c.caching() {
		procs = c.procs
		if r, ok := procs.Get(ip); ok {
			return r.pi, r.err
		}
	}
	pi, err := as.FindProcInfo(ip)
	if err == nil || errors.Is(err, ErrNoInfo) {
		procs.Put(ip, procResult{pi, err})
	}
	return pi, err
}

// FlushCache drops everything cached for addresses in [lo, hi): rules
// looked up at those addresses and procedures that overlap the range.
// lo == hi == 0 flushes the whole cache (libunwind's
// unw_flush_cache(as, 0, 0)). A step running concurrently with the flush
// may still store what it computed from the old state, as in libunwind:
// flush before unwinding code that changed.
func (c *Cache) FlushCache(lo, hi uint64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked(lo, hi)
}

func (c *Cache) flushLocked(lo, hi uint64) {
	all := lo == 0 && hi == 0
	inRange := func(a uint64) bool { return all || (a >= lo && a < hi) }
	for i := range c.kinds {
		if t, ok := c.kinds[i].Load().(ruleTable); ok {
			t.dropLocked(inRange)
		}
	}
	c.procs.dropIfLocked(func(a uint64, r procResult) bool {
		return inRange(a) || (r.pi != nil && r.pi.StartIP < hi && r.pi.EndIP > lo)
	})
}

// maxRuleKinds bounds the RuleKinds of a program: a few per arch.
const maxRuleKinds = 16

var nextRuleKind atomic.Int32

// RuleKind is one rule type's table in every Cache. Declare one per
// rule type, at package level, with NewRuleKind (in a function it would
// use up the program's limited number of kinds).
type RuleKind[R any] struct {
	id int32 // index in Cache.kinds, plus one: the zero RuleKind is not registered
}

// NewRuleKind registers a rule type. It panics past maxRuleKinds kinds
// in one program, a programming error.
func NewRuleKind[R any]() RuleKind[R] {
	id := nextRuleKind.Add(1)
	if id > maxRuleKinds {
		panic("unwind: too many rule kinds")
	}
	return RuleKind[R]{id}
}

// In returns cache's table of this kind: nil when cache is nil or its
// policy is CacheNone (a nil table misses every Get and drops every Put).
// It panics on a RuleKind not made by NewRuleKind.
func (k RuleKind[R]) In(c *Cache) *RuleCache[R] {
	if k.id == 0 {
		panic("unwind: RuleKind not made by NewRuleKind")
	}
	if !c.caching() {
		return nil
	}
	if rc, ok := c.kinds[k.id-1].Load().(*RuleCache[R]); ok {
		return rc
	}
	return k.create(c)
}

// create makes c's table of this kind (In's first use).
func (k RuleKind[R]) create(c *Cache) *RuleCache[R] {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rc, ok := c.kinds[k.id-1].Load().(*RuleCache[R]); ok {
		return rc
	}
	rc := &RuleCache[R]{owner: c}
	c.kinds[k.id-1].Store(rc)
	return rc
}

// Table sizes: a table starts small (a cache per core, and triage opens
// thousands of cores) and grows while entries are evicted, up to
// MaxRuleEntries.
const (
	minRuleSets = 64
	maxRuleSets = 2048
	ruleWays    = 2
	// MaxRuleEntries bounds the entries of one table.
	MaxRuleEntries = maxRuleSets * ruleWays
)

// RuleCache is one kind of rule of one Cache, keyed by address. Get is
// lock-free and safe for concurrent use with everything else; rules are
// stored by value and must not be modified after Put (a pointer rule's
// target included). The methods of a nil *RuleCache do nothing.
type RuleCache[R any] struct {
	owner *Cache
	table atomic.Pointer[ruleSets[R]]
	// evictions since the table last grew (under owner.mu).
	evictions int
}

// ruleTable is what FlushCache needs of a RuleCache of any type.
type ruleTable interface {
	dropLocked(drop func(addr uint64) bool)
}

// ruleSets is the array of one table size: set i is slots[2i] (the
// newest entry) and slots[2i+1].
type ruleSets[R any] struct {
	shift uint // set index = (addr * golden) >> shift
	slots []atomic.Pointer[ruleEntry[R]]
}

type ruleEntry[R any] struct {
	addr uint64
	rule R
}

func newRuleSets[R any](sets int) *ruleSets[R] {
	shift := uint(64)
	for n := sets; n > 1; n >>= 1 {
		shift--
	}
	return &ruleSets[R]{shift: shift, slots: make([]atomic.Pointer[ruleEntry[R]], sets*ruleWays)}
}

// set is the index of addr's first slot. Fibonacci hashing spreads
// addresses that differ only in their low or high bits.
func (t *ruleSets[R]) set(addr uint64) int {
	return int((addr*0x9e3779b97f4a7c15)>>t.shift) * ruleWays
}

// Get returns the rule stored for addr.
func (rc *RuleCache[R]) Get(addr uint64) (r R, ok bool) {
	if rc == nil {
		return r, false
	}
	t := rc.table.Load()
	if t == nil {
		return r, false
	}
	i := t.set(addr)
	if e := t.slots[i].Load(); e != nil && e.addr == addr {
		return e.rule, true
	}
	if e := t.slots[i+1].Load(); e != nil && e.addr == addr {
		return e.rule, true
	}
	return r, false
}

// Put stores the rule for addr, evicting the older of the two entries
// of its set when both are taken.
func (rc *RuleCache[R]) Put(addr uint64, r R) {
	if rc == nil {
		return
	}
	e := &ruleEntry[R]{addr: addr, rule: r}
	c := rc.owner
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.caching() {
		return // SetPolicy(CacheNone) since In
	}
	t := rc.table.Load()
	if t == nil {
		t = newRuleSets[R](minRuleSets)
		rc.table.Store(t)
	}
	if t.insert(e) {
		rc.evictions++
		if n := len(t.slots); rc.evictions >= n/2 && n < MaxRuleEntries {
			rc.table.Store(t.grown())
			rc.evictions = 0
		}
	}
}

// insert puts e in its set and reports whether that evicted an entry.
func (t *ruleSets[R]) insert(e *ruleEntry[R]) (evicted bool) {
	i := t.set(e.addr)
	w0, w1 := t.slots[i].Load(), t.slots[i+1].Load()
	switch {
	case w0 != nil && w0.addr == e.addr, w0 == nil && (w1 == nil || w1.addr != e.addr):
		t.slots[i].Store(e)
	case w1 == nil || w1.addr == e.addr:
		t.slots[i+1].Store(e)
	default:
		// Readers may see w0 in both ways for a moment: harmless.
		t.slots[i+1].Store(w0)
		t.slots[i].Store(e)
		return true
	}
	return false
}

// grown is a copy of t with four times the sets (at most maxRuleSets).
// Lookups still holding t keep finding its entries.
func (t *ruleSets[R]) grown() *ruleSets[R] {
	n := min(len(t.slots)/ruleWays*4, maxRuleSets)
	g := newRuleSets[R](n)
	// Older entries first, so that the newest win their sets.
	for w := ruleWays - 1; w >= 0; w-- {
		for i := w; i < len(t.slots); i += ruleWays {
			if e := t.slots[i].Load(); e != nil {
				g.insert(e)
			}
		}
	}
	return g
}

func (rc *RuleCache[R]) dropLocked(drop func(addr uint64) bool) {
	rc.dropIfLocked(func(a uint64, _ R) bool { return drop(a) })
}

// dropIfLocked removes the entries drop selects; owner.mu is held.
func (rc *RuleCache[R]) dropIfLocked(drop func(addr uint64, r R) bool) {
	if rc == nil {
		return
	}
	t := rc.table.Load()
	if t == nil {
		return
	}
	for i := range t.slots {
		if e := t.slots[i].Load(); e != nil && drop(e.addr, e.rule) {
			t.slots[i].Store(nil)
		}
	}
}

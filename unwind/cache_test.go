package unwind

import (
	"fmt"
	"sync"
	"testing"
)

// testRule is a rule type whose value says which address it was
// computed for, so that a lookup returning another address's rule shows.
type testRule struct{ addr, check uint64 }

func ruleOf(addr uint64) testRule { return testRule{addr, ^addr} }

var testRules = NewRuleKind[testRule]()

// count is the number of entries the table holds.
func (rc *RuleCache[R]) count() int {
	t := rc.table.Load()
	if t == nil {
		return 0
	}
	n := 0
	for i := range t.slots {
		if t.slots[i].Load() != nil {
			n++
		}
	}
	return n
}

// countingSpace counts FindProcInfo calls; it answers err if set, else a
// procedure of 0x100 bytes around ip.
type countingSpace struct {
	nullSpace
	mu    sync.Mutex
	finds int
	err   error
}

func (s *countingSpace) FindProcInfo(ip uint64) (*ProcInfo, error) {
	s.mu.Lock()
	s.finds++
	s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	return &ProcInfo{StartIP: ip &^ 0xff, EndIP: ip&^0xff + 0x100}, nil
}

func TestCacheFindAndFlush(t *testing.T) {
	s := &countingSpace{}
	c := NewCache(CacheGlobal)
	for i := 0; i < 3; i++ {
		if _, err := c.FindProcInfo(s, 0x1234); err != nil {
			t.Fatal(err)
		}
	}
	testRules.In(c).Put(0x1234, ruleOf(0x1234))
	if s.finds != 1 {
		t.Errorf("%d lookups through the cache, want 1", s.finds)
	}
	c.FlushCache(0x1200, 0x1300)
	if _, ok := testRules.In(c).Get(0x1234); ok {
		t.Error("rule survived FlushCache of its range")
	}
	c.FindProcInfo(s, 0x1234)
	if s.finds != 2 {
		t.Errorf("%d lookups after flush, want 2", s.finds)
	}
	c.SetPolicy(CacheNone)
	c.FindProcInfo(s, 0x1234)
	c.FindProcInfo(s, 0x1234)
	if s.finds != 4 {
		t.Errorf("CacheNone: %d lookups, want 4", s.finds)
	}
}

// A negative answer is cached whether the address space returns
// ErrNoInfo itself or wraps it with context; its message is kept. Other
// errors (a failed read, say) are asked again.
func TestCacheKeepsWrappedNoInfo(t *testing.T) {
	wrapped := fmt.Errorf("pc 0x1234 in libfoo.so: %w", ErrNoInfo)
	s := &countingSpace{err: wrapped}
	c := NewCache(CacheGlobal)
	for i := 0; i < 3; i++ {
		pi, err := c.FindProcInfo(s, 0x1234)
		if pi != nil || err != wrapped {
			t.Fatalf("lookup %d: %v, %v; want the space's own error", i, pi, err)
		}
	}
	if s.finds != 1 {
		t.Errorf("wrapped ErrNoInfo: %d lookups, want 1 (the negative answer cached)", s.finds)
	}
	s.err, s.finds = fmt.Errorf("reading .eh_frame: %w", ErrUnavailable), 0
	c.FindProcInfo(s, 0x5678)
	c.FindProcInfo(s, 0x5678)
	if s.finds != 2 {
		t.Errorf("other error: %d lookups, want 2 (not cached)", s.finds)
	}
}

// However many addresses are stored, a table holds at most
// MaxRuleEntries, and the latest entries are found.
func TestRuleCacheBounded(t *testing.T) {
	c := NewCache(CacheGlobal)
	rc := testRules.In(c)
	const n = 20 * MaxRuleEntries
	for a := uint64(0); a < n; a++ {
		rc.Put(0x400000+a*4, ruleOf(0x400000+a*4))
		if a == 10 {
			if got := rc.count(); got != 11 {
				t.Fatalf("%d entries after 11 puts, want 11", got)
			}
		}
	}
	if got := rc.count(); got > MaxRuleEntries || got < MaxRuleEntries/2 {
		t.Errorf("%d entries after %d puts; want at most %d (and the table grown to near that)", got, n, MaxRuleEntries)
	}
	for a := uint64(n - 1); a >= n-64; a-- {
		addr := 0x400000 + a*4
		if r, ok := rc.Get(addr); !ok || r != ruleOf(addr) {
			t.Fatalf("recent entry %#x: %v %v", addr, r, ok)
		}
	}
}

// FlushCache drops rules inside [lo, hi) and procedures overlapping it,
// and nothing else; (0, 0) drops everything.
func TestFlushCacheRanges(t *testing.T) {
	s := &countingSpace{}
	c := NewCache(CacheGlobal)
	rc := testRules.In(c)
	var addrs []uint64
	for a := uint64(0x1000); a < 0x1800; a += 0x40 {
		addrs = append(addrs, a)
		rc.Put(a, ruleOf(a))
		c.FindProcInfo(s, a)
	}
	for _, a := range addrs {
		if _, ok := rc.Get(a); !ok {
			t.Fatalf("%#x not cached (%d entries: a small table evicts nothing)", a, rc.count())
		}
	}
	const lo, hi = 0x1240, 0x1400
	c.FlushCache(lo, hi)
	s.finds = 0
	for _, a := range addrs {
		_, ok := rc.Get(a)
		if want := a < lo || a >= hi; ok != want {
			t.Errorf("rule %#x cached %v after FlushCache(%#x, %#x), want %v", a, ok, lo, hi, want)
		}
		before := s.finds
		c.FindProcInfo(s, a)
		// The procedure of a is [a&^0xff, +0x100).
		start := a &^ 0xff
		if asked, want := s.finds > before, start < hi && start+0x100 > lo; asked != want {
			t.Errorf("procedure at %#x looked up again: %v, want %v", a, asked, want)
		}
	}
	c.FlushCache(0, 0)
	if n := rc.count(); n != 0 {
		t.Errorf("%d rules after FlushCache(0, 0)", n)
	}
	if n := c.procs.count(); n != 0 {
		t.Errorf("%d procedures after FlushCache(0, 0)", n)
	}
}

// Under CacheNone nothing is stored and every lookup goes to the space;
// switching back caches again.
func TestCacheNone(t *testing.T) {
	s := &countingSpace{}
	c := NewCache(CacheNone)
	if rc := testRules.In(c); rc != nil {
		t.Fatal("CacheNone gives a table")
	}
	var none *RuleCache[testRule]
	none.Put(1, ruleOf(1))
	if _, ok := none.Get(1); ok {
		t.Error("the nil table found a rule")
	}
	c.FindProcInfo(s, 0x10)
	c.FindProcInfo(s, 0x10)
	if s.finds != 2 {
		t.Errorf("%d lookups, want 2", s.finds)
	}
	c.SetPolicy(CacheGlobal)
	rc := testRules.In(c)
	rc.Put(5, ruleOf(5))
	c.SetPolicy(CacheNone)
	if rc.count() != 0 {
		t.Error("SetPolicy(CacheNone) kept rules")
	}
	rc.Put(6, ruleOf(6)) // a cursor that took the table before the switch
	if rc.count() != 0 {
		t.Error("a table stored a rule under CacheNone")
	}
	if c.Policy() != CacheNone || (*Cache)(nil).Policy() != CacheNone {
		t.Error("Policy")
	}
}

// Goroutines sharing a Cache (analyze unwinds threads in parallel) see
// only rules stored for the address they ask, whatever the others put
// and flush meanwhile. Run with -race.
func TestCacheConcurrent(t *testing.T) {
	c := NewCache(CacheGlobal)
	s := &countingSpace{}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc := testRules.In(c)
			for i := 0; i < 20000; i++ {
				a := uint64(0x400000 + (i*7919+g*104729)%50000*4)
				if r, ok := rc.Get(a); ok && r != ruleOf(a) {
					errs <- fmt.Errorf("Get(%#x) = %+v", a, r)
					return
				}
				rc.Put(a, ruleOf(a))
				if pi, err := c.FindProcInfo(s, a); err != nil || pi.StartIP != a&^0xff {
					errs <- fmt.Errorf("FindProcInfo(%#x) = %+v, %v", a, pi, err)
					return
				}
				if i%5000 == g {
					c.FlushCache(a, a+0x1000)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := testRules.In(c).count(); n > MaxRuleEntries {
		t.Errorf("%d entries", n)
	}
}

func TestZeroRuleKindPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a RuleKind not made by NewRuleKind was used")
		}
	}()
	var k RuleKind[int]
	k.In(NewCache(CacheGlobal))
}

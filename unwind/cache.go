package unwind

import "sync"

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
// rule, apply rule". One Cache belongs to one address space.
type Cache struct {
	mu     sync.RWMutex
	policy CachePolicy
	rules  map[uint64]any
	procs  map[uint64]*ProcInfo
}

// NewCache returns an empty cache with the given policy.
func NewCache(policy CachePolicy) *Cache {
	return &Cache{policy: policy, rules: map[uint64]any{}, procs: map[uint64]*ProcInfo{}}
}

// Policy reports the cache's policy.
func (c *Cache) Policy() CachePolicy {
	if c == nil {
		return CacheNone
	}
	return c.policy
}

// SetPolicy changes the policy; switching to CacheNone drops everything.
func (c *Cache) SetPolicy(p CachePolicy) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.policy = p
	if p == CacheNone {
		clear(c.rules)
		clear(c.procs)
	}
}

// Rule returns the rule cached for a lookup address.
func (c *Cache) Rule(addr uint64) (any, bool) {
	if c == nil || c.policy == CacheNone {
		return nil, false
	}
	c.mu.RLock()
	r, ok := c.rules[addr]
	c.mu.RUnlock()
	return r, ok
}

// PutRule caches the rule for a lookup address.
func (c *Cache) PutRule(addr uint64, rule any) {
	if c == nil || c.policy == CacheNone {
		return
	}
	c.mu.Lock()
	c.rules[addr] = rule
	c.mu.Unlock()
}

// FindProcInfo looks ip up in as, through the cache.
func (c *Cache) FindProcInfo(as AddrSpace, ip uint64) (*ProcInfo, error) {
	if c != nil && c.policy != CacheNone {
		c.mu.RLock()
		pi, ok := c.procs[ip]
		c.mu.RUnlock()
		if ok {
			if pi == nil {
				return nil, ErrNoInfo
			}
			return pi, nil
		}
	}
	pi, err := as.FindProcInfo(ip)
	if c != nil && c.policy != CacheNone && (err == nil || err == ErrNoInfo) {
		c.mu.Lock()
		c.procs[ip] = pi
		c.mu.Unlock()
	}
	return pi, err
}

// FlushCache drops everything cached for addresses in [lo, hi). lo == hi
// == 0 flushes the whole cache (libunwind's unw_flush_cache(as, 0, 0)).
func (c *Cache) FlushCache(lo, hi uint64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if lo == 0 && hi == 0 {
		clear(c.rules)
		clear(c.procs)
		return
	}
	for a := range c.rules {
		if a >= lo && a < hi {
			delete(c.rules, a)
		}
	}
	for a, pi := range c.procs {
		if (a >= lo && a < hi) || (pi != nil && pi.StartIP < hi && pi.EndIP > lo) {
			delete(c.procs, a)
		}
	}
}

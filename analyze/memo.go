package analyze

import "sync"

// memo keeps what a computation returned for each key, for goroutines
// that share it (the threads symbolized in parallel). Two goroutines
// may compute the same key at once: the computations here are pure, so
// either answer is kept, and no lock is held while computing.
type memo[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

// get returns the value kept for k, computing and keeping it the first
// time.
func (m *memo[K, V]) get(k K, compute func() V) V {
	m.mu.Lock()
	v, ok := m.m[k]
	m.mu.Unlock()
	if ok {
		return v
	}
	v = compute()
	m.mu.Lock()
	if m.m == nil {
		m.m = map[K]V{}
	}
	m.m[k] = v
	m.mu.Unlock()
	return v
}

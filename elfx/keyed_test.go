package elfx

import (
	"os"
	"sync"
	"sync/atomic"
	"testing"
)

// TestKeyedOncePerKey: the parallel workers of a batch asking one
// object for a keyed value get the one value, computed once per key.
func TestKeyedOncePerKey(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	o, err := Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	type key struct{ n int }
	var computed atomic.Int32
	values := make([]any, 16)
	var wg sync.WaitGroup
	for i := range values {
		wg.Go(func() {
			values[i] = o.Keyed(key{i % 2}, func() any {
				computed.Add(1)
				return new(int)
			})
		})
	}
	wg.Wait()
	if n := computed.Load(); n != 2 {
		t.Errorf("computed %d times for 2 keys", n)
	}
	for i, v := range values {
		if v != values[i%2] {
			t.Errorf("worker %d got another value than worker %d", i, i%2)
		}
	}
}

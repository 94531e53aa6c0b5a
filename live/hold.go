package live

import (
	"context"
	"fmt"
	"os"
	"time"
)

// holdEnv names a duration for which a snapshot keeps the process
// stopped once every thread is: the tests' way to kill or interrupt
// coreunwind at the worst moment and see the process run on. It is read
// only when set; nothing else uses it.
const holdEnv = "COREUNWIND_TEST_HOLD_STOPPED"

func holdForTest(ctx context.Context, pid int) {
	v := os.Getenv(holdEnv)
	if v == "" {
		return
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return
	}
	fmt.Fprintf(os.Stderr, "coreunwind: test: holding process %d stopped for %v\n", pid, d)
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}

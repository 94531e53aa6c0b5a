package memlimit

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

const childEnv = "MEMLIMIT_TEST_CHILD"

// runChild runs the test named test of this binary as the child side
// of its check (childEnv set), with GOMEMLIMIT set to gomemlimit, and
// returns its output.
func runChild(test, gomemlimit string) ([]byte, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), childEnv+"=1", "GOMEMLIMIT="+gomemlimit)
	return cmd.CombinedOutput()
}

// growHeap keeps allocating, up to 2 GiB, and exits 0 if nothing
// stopped it.
func growHeap() {
	var keep [][]byte
	for range 512 {
		keep = append(keep, make([]byte, 4<<20))
	}
	fmt.Println("not stopped", len(keep))
	os.Exit(0)
}

// TestHeapAboveLimitEnds keeps allocating (as a parser trusting a size
// field would) in a child process whose limit is 64 MiB: the child must
// end through exceeded, with its status, long before the 2 GiB it asks
// for.
func TestHeapAboveLimitEnds(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		Start(64<<20, func(live, limit uint64) {
			fmt.Printf("exceeded: %d live of %d\n", live, limit)
			os.Exit(7)
		})
		growHeap()
	}
	out, err := runChild("TestHeapAboveLimitEnds", "")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 || !strings.Contains(string(out), "exceeded: ") {
		t.Errorf("child: %v, want exit status 7 from exceeded\n%s", err, out)
	}
}

// TestLimitReadAtFirstCollection: StartDefault's way reads the limit
// after the first collection, not before, and still ends a child whose
// heap goes over it (64 MiB here) through exceeded.
func TestLimitReadAtFirstCollection(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		var reads atomic.Int32
		startAtFirstCollection(func() uint64 { reads.Add(1); return 64 << 20 }, func(live, limit uint64) {
			fmt.Printf("exceeded: %d live of %d after %d reads\n", live, limit, reads.Load())
			os.Exit(7)
		})
		fmt.Printf("reads before a collection: %d\n", reads.Load())
		growHeap()
	}
	out, err := runChild("TestLimitReadAtFirstCollection", "")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 || !strings.Contains(string(out), "reads before a collection: 0\n") ||
		!strings.Contains(string(out), " after 1 reads") {
		t.Errorf("child: %v, want exit status 7 from exceeded, the limit read once, after a collection\n%s", err, out)
	}
}

// TestGOMEMLIMITWins: the runtime's own knob, when set, is the limit.
func TestGOMEMLIMITWins(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		fmt.Println("limit", Start(1<<40, func(uint64, uint64) {}))
		os.Exit(0)
	}
	out, err := runChild("TestGOMEMLIMITWins", "100MiB")
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("limit %d", 100<<20)) {
		t.Errorf("child: %v\n%s", err, out)
	}
}

// TestMemTotalIsMeminfos: sysinfo(2)'s total is the MemTotal line of
// /proc/meminfo, which Default read before.
func TestMemTotalIsMeminfos(t *testing.T) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	var kb uint64
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err = strconv.ParseUint(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if kb == 0 || memTotal() != kb<<10 {
		t.Errorf("memTotal() = %d, /proc/meminfo's MemTotal %d kB", memTotal(), kb)
	}
}

func TestDefault(t *testing.T) {
	if d, m := Default(), memTotal(); m == 0 || d == 0 || d > m {
		t.Errorf("Default() = %d with MemTotal %d", d, m)
	}
}

// Package memlimit bounds the memory of a coreunwind process. A hostile
// or huge input must not take the machine: without a bound the heap
// grows until the kernel's OOM killer ends the process (no message at
// all) or the Go runtime dies with "fatal error: out of memory" and a
// dump of every goroutine, exit status 2, which a script cannot tell
// from an unreadable core. Start sets the runtime's soft limit and
// checks, after every garbage collection, the heap that survived it:
// above the limit, collecting cannot help, and the process ends with a
// one-line message and a status of its own.
package memlimit

import (
	"bytes"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
	"syscall"
)

// Start bounds the process's memory to limit bytes, or, when the
// environment sets GOMEMLIMIT, to that (Go's own knob, which the runtime
// has already applied). When the heap live after a collection exceeds
// the limit, exceeded is called once, with the live bytes and the limit,
// on the runtime's finalizer goroutine; it is expected to end the
// process. A limit of 0 (unknown) sets none. Start returns the limit in
// force.
func Start(limit uint64, exceeded func(live, limit uint64)) uint64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		limit = uint64(debug.SetMemoryLimit(-1))
	} else if limit > 0 {
		debug.SetMemoryLimit(int64(min(limit, math.MaxInt64)))
	} else {
		return 0
	}
	w := &watcher{limit: limit, exceeded: exceeded}
	w.arm()
	return limit
}

// StartDefault is Start(Default(), exceeded) with Default read after
// the first collection instead of now: a run whose heap stays below the
// first collection's goal (4 MiB times GOGC/100: a warm report,
// --version) reads no cgroup file, a tenth of the CPU of its start.
// Before the first collection nothing is checked either way; its goal
// is below any limit a machine able to run a report gives.
func StartDefault(exceeded func(live, limit uint64)) {
	if os.Getenv("GOMEMLIMIT") != "" {
		Start(0, exceeded)
		return
	}
	startAtFirstCollection(Default, exceeded)
}

// startAtFirstCollection is Start with its limit read, and set, by the
// watcher after the first collection, before it checks that collection.
func startAtFirstCollection(limit func() uint64, exceeded func(live, limit uint64)) {
	w := &watcher{pending: limit, exceeded: exceeded}
	w.arm()
}

// watcher checks the live heap after each collection.
type watcher struct {
	limit uint64
	// pending, when set, gives the limit at the first check.
	pending  func() uint64
	exceeded func(live, limit uint64)
	once     sync.Once
}

// sentinel is garbage as soon as it is made: its finalizer runs after
// the next collection and arms a new one.
type sentinel struct{ w *watcher }

func (w *watcher) arm() {
	runtime.SetFinalizer(&sentinel{w: w}, func(s *sentinel) { s.w.check() })
}

// check runs on the finalizer goroutine after a collection.
func (w *watcher) check() {
	if w.pending != nil {
		w.limit, w.pending = w.pending(), nil
		if w.limit == 0 {
			return // unknown: no limit, as Start(0)
		}
		debug.SetMemoryLimit(int64(min(w.limit, math.MaxInt64)))
	}
	if live := liveHeap(); live > w.limit {
		w.once.Do(func() { w.exceeded(live, w.limit) })
		return
	}
	w.arm()
}

// liveHeap is the heap the last collection found in use.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// Default is the limit for a process given none: three quarters of the
// memory it may use, the machine's (MemTotal) or its cgroup's
// (memory.max) if lower, leaving room for the mapped core and objects'
// page cache and for the rest of the machine. 0 when neither is known.
func Default() uint64 {
	total := memTotal()
	if cg := cgroupMax(); cg > 0 && (total == 0 || cg < total) {
		total = cg
	}
	return total / 4 * 3
}

// memTotal is the machine's memory in bytes (/proc/meminfo's MemTotal:
// both are the kernel's totalram_pages), 0 if unknown. sysinfo(2) is one
// system call; /proc/meminfo has the kernel add up forty counters into
// text for us to parse, a tenth of the start of `--version`.
func memTotal() uint64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return uint64(si.Totalram) * max(uint64(si.Unit), 1)
}

// cgroupMax is the memory limit of the process's cgroup in bytes (v2
// memory.max, v1 memory.limit_in_bytes), 0 if none or unknown.
func cgroupMax() uint64 {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		var file string
		if rest, ok := bytes.CutPrefix(line, []byte("0::")); ok {
			file = "/sys/fs/cgroup" + string(rest) + "/memory.max"
		} else if _, rest, ok := bytes.Cut(line, []byte(":memory:")); ok {
			file = "/sys/fs/cgroup/memory" + string(rest) + "/memory.limit_in_bytes"
		} else {
			continue
		}
		v, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 10, 64); err == nil { // not "max"
			return n
		}
	}
	return 0
}

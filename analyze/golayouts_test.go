package analyze

import (
	"runtime"
	"sync"
	"testing"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/goruntime"
)

// goPanicProg panics: with GOTRACEBACK=crash the runtime aborts with a
// core.
const goPanicProg = `package main

func main() { panic("layouts") }
`

// mallocs is how many heap objects f allocated.
func mallocs(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

// TestGoLayoutsOncePerBinary: the cores of one Go executable in a batch
// (one elfx.Cache, as triage shares) read the runtime's layouts once.
// Each core's goroutine reader walked the executable's DWARF types
// again before: most of a batch of Go cores' CPU. The readers of the
// later cores, built at once by parallel workers, allocate a small part
// of what the first did, and read the goroutines as well.
func TestGoLayoutsOncePerBinary(t *testing.T) {
	dir, exe := buildGo(t, "", goPanicProg)
	cores := crashTimes(t, dir, exe, 3, []string{"GOTRACEBACK=crash"})
	objs := elfx.NewCache()
	defer objs.Close()
	// reader builds core's goroutine reader and counts its allocations.
	reader := func(core string) (r *goruntime.Reader, allocs uint64) {
		s, err := Open(core, Options{Executable: exe, Objects: objs})
		if err != nil {
			t.Error(err)
			return nil, 0
		}
		defer s.Close()
		m := s.target.mainModule()
		obj := m.obj()
		var warnings []string
		allocs = mallocs(func() { r, warnings = goReader(s.target, m, obj) })
		if r == nil {
			t.Errorf("%s: no goroutine reader: %q", core, warnings)
			return nil, allocs
		}
		if gs, _ := r.Goroutines(s.target); len(gs) == 0 {
			t.Errorf("%s: no goroutines read", core)
		}
		return r, allocs
	}
	_, first := reader(cores[0])
	later := make([]uint64, 2)
	var wg sync.WaitGroup
	for i := range later {
		wg.Go(func() { _, later[i] = reader(cores[1+i]) })
	}
	wg.Wait()
	t.Logf("first %d, later %v", first, later)
	for i, n := range later {
		// Opening the session is outside the count; the rest (symbol
		// values, build info) is a few hundred objects. The first
		// reads the layouts from the generated table (about a
		// thousand objects: the host's release is in it), or walks
		// the DWARF's types (165,000) for a release it lacks.
		if n*4 > first {
			t.Errorf("core %d's reader allocated %d objects, the first core's %d: the layouts were read again", i+2, n, first)
		}
	}
}

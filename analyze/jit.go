package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"

	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/unwind"
)

// jitState is what a core says about code generated at run time: the
// libunwind dynamic-info registration list, objects registered with the
// GDB JIT interface, and a perf map. It is read on first need (an address
// that no module covers), once per target: a core does not change, so one
// read of the list is one generation.
type jitState struct {
	once sync.Once

	perfMapPath string // --perf-map, "" to look beside the core

	listAddrs []uint64         // the _U_dyn_info_list instances found
	dyn       *unwind.DynIndex // merged entries of all lists
	modules   []*module        // GDB JIT objects, sorted by start
	perf      *perfMap
	warnings  []string
}

// jit returns the JIT state, reading it from the core the first time.
func (t *target) jit() *jitState {
	j := &t.jitState
	j.once.Do(func() { j.load(t) })
	return j
}

func (j *jitState) load(t *target) {
	warn := func(format string, args ...any) { j.warnings = append(j.warnings, fmt.Sprintf(format, args...)) }
	var infos []*unwind.DynInfo
	var gen uint32
	addrs, errs := findDynInfoLists(t)
	for _, err := range errs {
		warn("dynamic unwind info: %v", err)
	}
	for _, addr := range addrs {
		x, ws, err := unwind.ReadDynList(t, addr, unwind.DefaultDynLimits)
		for _, w := range ws {
			warn("%v", w)
		}
		if err != nil {
			warn("%v", err)
			continue
		}
		j.listAddrs = append(j.listAddrs, addr)
		infos = append(infos, x.Infos...)
		gen += x.Generation
	}
	j.dyn = unwind.NewDynIndex(infos, gen)

	mods, ws := loadGDBJIT(t)
	j.modules = mods
	for _, w := range ws {
		warn("GDB JIT interface: %s", w)
	}

	path := j.perfMapPath
	explicit := path != ""
	if !explicit && t.core.PID != 0 && t.core.Path != "" {
		path = filepath.Join(filepath.Dir(t.core.Path), "perf-"+strconv.Itoa(t.core.PID)+".map")
	}
	if path != "" {
		pm, err := readPerfMapFile(path)
		switch {
		case err == nil:
			j.perf = pm
			if pm.skipped > 0 {
				warn("perf map %s: %d malformed lines ignored", path, pm.skipped)
			}
		case explicit || !os.IsNotExist(err):
			warn("perf map: %v", err)
		}
	}
}

// jitWarnings are the warnings of the JIT state, if it was read.
func (t *target) jitWarnings() []string {
	j := &t.jitState
	j.once.Do(func() {}) // never needed: nothing to say, and no read from now on
	return j.warnings
}

// jitModule returns the GDB JIT object covering addr.
func (t *target) jitModule(addr uint64) *module {
	ms := t.jit().modules
	i := sort.Search(len(ms), func(i int) bool { return ms[i].start > addr }) - 1
	if i < 0 || addr >= ms[i].end {
		return nil
	}
	return ms[i]
}

// dynProcInfo is FindProcInfo's last resort: the registered dynamic info.
func (t *target) dynProcInfo(ip uint64) (*unwind.ProcInfo, error) {
	if d := t.jit().dyn.Lookup(ip); d != nil && d.Err == nil {
		return d.ProcInfo(), nil
	}
	return nil, unwind.ErrNoInfo
}

// jitName names code outside every module: by its registered dynamic
// info, else by the perf map. start is where the named code begins.
func (t *target) jitName(ip uint64) (name string, start uint64, ok bool) {
	j := t.jit()
	if d := j.dyn.Lookup(ip); d != nil && d.Name() != "" {
		return d.Name(), d.StartIP, true
	}
	if e, ok := j.perf.lookup(ip); ok {
		return e.name, e.start, true
	}
	return "", 0, false
}

// jitFrame is the symbolic part of a frame at lookup address addr (pc is
// the frame's PC) that no module covers.
func (t *target) jitFrame(addr, pc uint64) report.Frame {
	name, start, ok := t.jitName(addr)
	if !ok {
		return report.Frame{}
	}
	return report.Frame{Function: report.Ptr(name), FunctionOffset: report.Ptr(report.Hex(pc - start))}
}

// dynListAddr is DynInfoListAddr: the first registration list found.
func (t *target) dynListAddr() (uint64, error) {
	if a := t.jit().listAddrs; len(a) > 0 {
		return a[0], nil
	}
	return 0, unwind.ErrNoInfo
}

package elfx

import (
	"debug/dwarf"
	"reflect"
	"sync"
	"testing"
)

// TestSkimmedCallSitesAsReader: the call sites of every function with
// children read with the unit's skipper (callsiteskip.go) are the ones
// debug/dwarf's reading gives, on real programs: Rust, C++ with
// templates, C++ built with LTO (call origins by DW_FORM_ref_addr), the
// units program after dwz (DWARF 4, GNU call sites, partial units),
// libc's debug file (zlib-compressed) and python3.11's (LTO). Most call
// sites must be decoded by the skipper, or it does not serve the
// programs it is for.
func TestSkimmedCallSitesAsReader(t *testing.T) {
	bins := dieSkipBinaries(t)
	for _, tc := range []struct {
		name  string
		open  func(t *testing.T) *Object
		every int // one unit in every
		// noSites: the compiler writes no call sites (rustc at
		// opt-level 1): only the walks over the functions are compared.
		noSites bool
	}{
		{"rust", func(t *testing.T) *Object { return mustOpen(t, bins["rust"]) }, 1, true},
		{"cxx", func(t *testing.T) *Object { return mustOpen(t, bins["cxx"]) }, 1, false},
		{"lto", func(t *testing.T) *Object { return mustOpen(t, bins["lto"]) }, 1, false},
		{"dwz", func(t *testing.T) *Object { return mustOpen(t, unitsProgram(t, "dwz", true)) }, 1, false},
		{"gnu-call-sites", func(t *testing.T) *Object { return mustOpen(t, unitsProgram(t, "dw4", false, "-gdwarf-4")) }, 1, false},
		{"libc-dbg", func(t *testing.T) *Object { return mustOpen(t, libcWithDebug(t).DebugFile()) }, 20, false},
		{"python3.11-dbg", pythonWithDebug, 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.open(t)
			x, err := o.dwarfIndex()
			if err != nil || x == nil || x.lazy == nil {
				t.Fatalf("lazy index: %v, %v", x, err)
			}
			var n skimCounts
			for i, cu := range x.allUnits() {
				if i%tc.every != 0 {
					continue
				}
				if err := cu.load(x); err != nil {
					t.Fatalf("unit at %#x: %v", cu.off, err)
				}
				compareCallSites(t, cu, &n)
			}
			t.Logf("%d functions, %d skimmed; %d call sites, %d decoded by the skipper (%d with a target by ref_addr)", n.funcs, n.skimmed, n.sites, n.decoded, n.refAddr)
			if (n.sites == 0) != tc.noSites || n.funcs == 0 || n.skimmed < n.funcs*9/10 || n.decoded < n.sites*9/10 {
				t.Errorf("%d of %d functions skimmed, %d of %d call sites decoded by the skipper", n.skimmed, n.funcs, n.decoded, n.sites)
			}
		})
	}
}

// readCalls is every site of fc with its called function read.
func readCalls(fc *functionCalls) []CallSite {
	if fc == nil {
		return nil
	}
	var sites []CallSite
	for i := range fc.sites {
		sites = append(sites, fc.site(i))
	}
	return sites
}

// sameCalls: a and b list the same calls.
func sameCalls(a, b *functionCalls) bool {
	return (a == nil) == (b == nil) && (a == nil || a.complete == b.complete && reflect.DeepEqual(readCalls(a), readCalls(b)))
}

type skimCounts struct {
	funcs, skimmed, sites, decoded, refAddr int
}

// compareCallSites reads every subprogram with children of cu both
// ways, and every call site on its own both ways.
func compareCallSites(t *testing.T, cu *cuIndex, n *skimCounts) {
	t.Helper()
	if cu.skip == nil {
		t.Fatalf("unit at %#x: no skipper", cu.off)
	}
	readDIEs(t, cu, func(e *dwarf.Entry) bool {
		if (e.Tag == dwarf.TagCompileUnit || e.Tag == dwarf.TagPartialUnit) && e.Offset != cu.entry.Offset {
			return false // the unit's end
		}
		switch e.Tag {
		case dwarf.TagSubprogram:
			if !e.Children {
				return true
			}
			n.funcs++
			want, werr := readFunctionCallsReader(cu, e.Offset)
			got, ok := skimFunctionCalls(cu, e.Offset)
			if !ok {
				return true
			}
			n.skimmed++
			if werr != nil || !sameCalls(got, want) {
				t.Errorf("unit at %#x, function at %#x: skimmed %+v; debug/dwarf %+v, %v", cu.off, e.Offset, readCalls(got), readCalls(want), werr)
			}
		case dwarf.TagCallSite, tagGNUCallSite:
			n.sites++
			want, wantSite := callSiteOf(cu, e)
			sh, at, err := cu.skip.code(uint64(cu.base + e.Offset))
			if err != nil || sh == nil || sh.tag != e.Tag {
				t.Fatalf("call site at %#x: the skipper reads %+v, %v", e.Offset, sh, err)
			}
			got, target, isSite, decoded := skimCallSite(cu, at, sh)
			if !decoded {
				return true
			}
			if target.has {
				fc := &functionCalls{sites: []CallSite{got}, targets: []siteTarget{target}}
				got = fc.site(0)
			}
			n.decoded++
			if f := e.AttrField(dwarf.AttrCallOrigin); f != nil && f.Class == dwarf.ClassConstant {
				n.refAddr++
			}
			if got != want || isSite != wantSite {
				t.Errorf("unit at %#x, call site at %#x: skimmed %+v, %v; debug/dwarf %+v, %v", cu.off, e.Offset, got, isSite, want, wantSite)
			}
		}
		return true
	})
}

// FuzzSkimmedCallSites: the call sites of each function of a crafted
// unit read with the skipper are debug/dwarf's, where both read them;
// neither panics. Seeded with a unit holding a function with a tail call
// of a declared function and a call of itself, and with the sections of the units
// program built with -flto when g++ is there.
func FuzzSkimmedCallSites(f *testing.F) {
	f.Add(craftedCallSiteInfo, craftedCallSiteAbbrev)
	if info, abbrev, ok := ltoUnitsSections(); ok {
		f.Add(info, abbrev)
	}
	f.Fuzz(func(t *testing.T, info, abbrev []byte) {
		l := bytesLazyDWARF(info, abbrev)
		cu := &cuIndex{lazy: l}
		l.units[0] = cu
		x := &dwarfIndex{name: "fuzz", lazy: l}
		if cu.load(x) != nil || cu.skip == nil {
			return
		}
		r := cu.d.Reader()
		r.Seek(cu.entry.Offset)
		for i := 0; i < 1000; i++ {
			e, err := r.Next()
			if err != nil || e == nil {
				return
			}
			if e.Tag != dwarf.TagSubprogram {
				continue
			}
			got, ok := skimFunctionCalls(cu, e.Offset)
			want, err := readFunctionCallsReader(cu, e.Offset)
			if ok && err == nil && !sameCalls(got, want) {
				t.Fatalf("function at %#x: skimmed %+v; debug/dwarf %+v", e.Offset, readCalls(got), readCalls(want))
			}
		}
	})
}

// A DWARF 5 unit (64-bit addresses): a compile unit holding a declared
// function "f" (abbreviation 4), and a function (2) with
// DW_AT_call_all_calls whose children are a variable (5), a call site
// (3: return pc, tail call, call origin f) and a lexical block (6)
// holding a call site of the function itself.
var (
	craftedCallSiteAbbrev = []byte{
		1, 0x11, 1, 0, 0, // compile_unit, children
		2, 0x2e, 1, 0x11, 0x01, 0x7a, 0x19, 0, 0, // subprogram: low_pc, call_all_calls
		3, 0x48, 0, 0x7d, 0x01, 0x82, 0x01, 0x19, 0x7f, 0x13, 0, 0, // call_site: return_pc, tail_call (0x82), call_origin (ref4)
		4, 0x2e, 0, 0x03, 0x08, 0x3c, 0x19, 0, 0, // subprogram: name, declaration
		5, 0x34, 0, 0x03, 0x08, 0x02, 0x18, 0, 0, // variable: name, location (exprloc)
		6, 0x0b, 1, 0, 0, // lexical_block, children
		7, 0x48, 0, 0x7d, 0x01, 0x7f, 0x11, 0, 0, // call_site: return_pc, call_origin (ref1)
		0,
	}
	craftedCallSiteInfo = []byte{
		0x36, 0, 0, 0, // unit_length
		5, 0, 1, 8, // version, DW_UT_compile, address size
		0, 0, 0, 0, // abbreviation offset
		1,         // 0x0c: compile_unit
		4, 'f', 0, // 0x0d: f, declared
		2, 0x00, 0x10, 0, 0, 0, 0, 0, 0, // 0x10: the function, at 0x1000
		5, 'v', 0, 2, 0x91, 0x00, // a variable
		3, 0x08, 0x10, 0, 0, 0, 0, 0, 0, 0x0d, 0, 0, 0, // the tail call of f, returning to 0x1008
		6,                                     // a lexical block
		7, 0x04, 0x10, 0, 0, 0, 0, 0, 0, 0x10, // a call of the function itself, returning to 0x1004
		0, // the block's end
		0, // the function's end
		0, // the unit's end
	}
)

// TestSkimmedCallSitesCrafted reads the crafted unit's function with the
// skipper: its two call sites, a tail call of f by name and a call of
// itself by its entry.
func TestSkimmedCallSitesCrafted(t *testing.T) {
	l := bytesLazyDWARF(craftedCallSiteInfo, craftedCallSiteAbbrev)
	cu := &cuIndex{lazy: l}
	l.units[0] = cu
	if err := cu.load(&dwarfIndex{name: "crafted", lazy: l}); err != nil || cu.skip == nil {
		t.Fatalf("loading the unit: %v (skipper %v)", err, cu.skip)
	}
	got, ok := skimFunctionCalls(cu, 0x10)
	want := []CallSite{
		{ReturnPC: 0x1008, Tail: true, TargetName: "f"},
		{ReturnPC: 0x1004, TargetAddr: 0x1000, HasTargetAddr: true},
	}
	if !ok || !got.complete || !reflect.DeepEqual(readCalls(got), want) {
		t.Errorf("skimmed %+v, %v; want %+v", readCalls(got), ok, want)
	}
	if read, err := readFunctionCallsReader(cu, 0x10); err != nil || !read.complete || !reflect.DeepEqual(readCalls(read), want) {
		t.Errorf("debug/dwarf reads %+v, %v; want %+v", readCalls(read), err, want)
	}
}

// TestSkimmedCallSitesConcurrent: goroutines asking one object for the
// same functions' call sites and tail calls (their called functions read
// when first asked for: functionCalls.site) get what an object asked
// alone gives. Run with -race.
func TestSkimmedCallSitesConcurrent(t *testing.T) {
	exe := dieSkipBinaries(t)["cxx"]
	alone, shared := mustOpen(t, exe), mustOpen(t, exe)
	x, err := alone.dwarfIndex()
	if err != nil || x == nil || x.lazy == nil {
		t.Fatalf("lazy index: %v, %v", x, err)
	}
	var entries, rets []uint64
	for _, cu := range x.allUnits() {
		if err := cu.load(x); err != nil {
			t.Fatalf("unit at %#x: %v", cu.off, err)
		}
		for _, s := range cu.scopes {
			if len(s.ranges) > 0 {
				entries = append(entries, s.ranges[0][0])
			}
		}
	}
	wantTails, wantSite := map[uint64][]CallSite{}, map[uint64]CallSite{}
	for _, e := range entries {
		wantTails[e], _, _ = alone.TailCalls(e)
		if fc, _ := alone.callsOf(e); fc != nil {
			for i := range fc.sites {
				rets = append(rets, fc.sites[i].ReturnPC)
			}
		}
	}
	for _, r := range rets {
		wantSite[r], _, _ = alone.CallSiteAt(r)
	}
	if len(rets) == 0 {
		t.Fatal("no call sites: the test proves nothing")
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range len(entries) + len(rets) {
				i := (k + g*7) % (len(entries) + len(rets))
				if i < len(entries) {
					e := entries[i]
					if got, _, _ := shared.TailCalls(e); !reflect.DeepEqual(got, wantTails[e]) {
						t.Errorf("TailCalls(%#x) = %+v, alone %+v", e, got, wantTails[e])
					}
					continue
				}
				r := rets[i-len(entries)]
				if got, _, _ := shared.CallSiteAt(r); got != wantSite[r] {
					t.Errorf("CallSiteAt(%#x) = %+v, alone %+v", r, got, wantSite[r])
				}
			}
		})
	}
	wg.Wait()
}

package elfx

import (
	"strings"
	"testing"
)

// nestedProgram has a GCC nested function (its DIE is a child of the
// function around it, its code outside that function's ranges) with a
// call inlined into it, and a function whose inlined calls are several
// deep.
const nestedProgram = `
#include <stdio.h>
#include <stdlib.h>
static inline int sq(int x) { return x * x; }
static inline int sq2(int x) { return sq(x) + sq(x + 1); }
__attribute__((noinline)) int apply(int (*f)(int), int v) { return f(v) + 1; }
int outer(int k) {
	__attribute__((noinline)) int inner(int v) { return sq2(v) * k; }
	return apply(inner, k);
}
int main(int argc, char **argv) { printf("%d %d\n", outer(argc), sq2(atoi(argv[0] + argc))); return 0; }
`

// localProgram names functions by classes local to a function: a
// lambda's closure and a struct inside app::run, whose member
// declarations lie in run's subtree.
const localProgram = `
#include <cstdio>
#include <cstdlib>
template <typename F> __attribute__((noinline)) int call(F f, int v) { return f(v) + 1; }
namespace app {
int run(int k) {
	struct Local { __attribute__((noinline)) static int twice(int v) { return v * 2 + std::rand(); } };
	auto lam = [k](int v) { return Local::twice(v) * k; };
	return call(lam, k);
}
}
int main(int argc, char **argv) { std::printf("%d\n", app::run(argc)); return 0; }
`

// TestScopeTreeLazy checks the frames of every instruction of a program
// with a nested function and of one with lambdas and local classes
// against addr2line, and that a lookup reads the children of the one
// function it lands in, not every function's (scopetree.go).
func TestScopeTreeLazy(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, compiler, ext, src string
		want                     string // a function that must be named
	}{
		{"nested", "gcc", "c", nestedProgram, "inner"},
		{"local", "g++", "cc", localProgram, "Local::twice"},
		{"templates", "g++", "cc", cxxProgram, "geo::Poly::centroid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := compile(t, dir, tc.compiler, tc.name, tc.ext, tc.src, "-O2", "-g")
			o := mustOpen(t, bin)
			addrs := instructionAddrs(t, bin, func(fn string) bool {
				return userCode(fn) || strings.Contains(fn, "Local") // _ZZN3app3runEiEN5Local5twiceEi
			})
			if len(addrs) == 0 {
				t.Fatal("no instructions")
			}
			// One lookup reads one function's subtree.
			if _, err := o.SourceFrames(addrs[len(addrs)/2]); err != nil {
				t.Fatal(err)
			}
			x, err := o.dwarfIndex()
			if err != nil || x == nil {
				t.Fatalf("no DWARF index: %v", err)
			}
			bodies, expanded, seqs, marks := 0, 0, 0, 0
			for _, cu := range x.allUnits() {
				for _, b := range cu.bodies {
					bodies++
					if b.tree != nil {
						expanded++
					}
				}
				for _, s := range cu.seqs {
					seqs++
					marks += len(s.marks)
				}
			}
			if expanded > 2+bodies/4 {
				t.Errorf("after one lookup %d of %d function bodies read", expanded, bodies)
			}
			if seqs == 0 || marks < seqs {
				t.Errorf("%d line sequences, %d marks to decode them from", seqs, marks)
			}
			compareWithAddr2line(t, o, bin, addrs)
			named := false
			for _, a := range addrs {
				fr, _ := o.SourceFrames(a)
				for _, f := range fr {
					named = named || strings.Contains(f.Function, tc.want)
				}
			}
			if !named {
				t.Errorf("no frame of %s: the program no longer tests what it should", tc.want)
			}
		})
	}
}

// TestRustUnitsLoadWithoutDecodingEveryDIE loads every unit of a Rust
// program, whose DWARF has no DW_AT_sibling and puts every function in
// modules beside the types' members: the first walks must not decode
// (one allocation at least each) every DIE of the units to skip them.
func TestRustUnitsLoadWithoutDecodingEveryDIE(t *testing.T) {
	bin := compile(t, t.TempDir(), "rustc", "prog", "rs", rustProgram, "-g", "-C", "opt-level=1")
	o := mustOpen(t, bin)
	x, err := o.newLazyDWARFIndex()
	if err != nil || x == nil {
		t.Fatalf("no lazy index: %v", err)
	}
	dies := 0
	for _, cu := range x.allUnits() {
		if err := cu.open(); err != nil {
			t.Fatal(err)
		}
		r := cu.d.Reader()
		for e, err := r.Next(); err == nil && e != nil; e, err = r.Next() {
			if e.Tag != 0 {
				dies++
			}
		}
	}
	allocs := testing.AllocsPerRun(1, func() {
		x, err := o.newLazyDWARFIndex()
		if err != nil || x == nil {
			t.Fatalf("no lazy index: %v", err)
		}
		for _, cu := range x.allUnits() {
			if err := cu.load(x); err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Logf("%d units of %d DIEs loaded in %.0f allocations", len(x.allUnits()), dies, allocs)
	if dies < 10000 || allocs > float64(dies) {
		t.Errorf("%d units of %d DIEs loaded in %.0f allocations", len(x.allUnits()), dies, allocs)
	}
}

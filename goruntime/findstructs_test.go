package goruntime

import (
	"debug/dwarf"
	"debug/elf"
	"testing"
)

// labelsProgram sets pprof labels: the label types are in its DWARF.
const labelsProgram = `package main

import (
	"context"
	"runtime/pprof"
)

func main() {
	pprof.Do(context.Background(), pprof.Labels("k", "v"), func(context.Context) { println("labelled") })
}
`

// cgoProgram is linked by the C toolchain: C units follow Go's.
const cgoProgram = `package main

// int twice(int x) { return 2 * x; }
import "C"

func main() { println(C.twice(2)) }
`

// everyStruct is the first struct type of each of names in the whole of
// d, by its offset, read the slow way: every entry of every unit.
func everyStruct(t *testing.T, d *dwarf.Data, names []string) map[string]dwarf.Offset {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string]dwarf.Offset{}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			return out
		}
		if n, _ := e.Val(dwarf.AttrName).(string); e.Tag == dwarf.TagStructType && want[n] {
			if _, ok := out[n]; !ok {
				out[n] = e.Offset
			}
		}
	}
}

// TestFindStructsAsWholeWalk: findStructs, which ends its walk with the
// unit the types are in, finds the struct types a walk over every
// entry finds, and none else: for a program with and without the label
// types, and one the C toolchain linked.
func TestFindStructsAsWholeWalk(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		env       []string
	}{
		{"plain", goProgram, []string{"CGO_ENABLED=0"}},
		{"labels", labelsProgram, []string{"CGO_ENABLED=0"}},
		{"cgo", cgoProgram, []string{"CGO_ENABLED=1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := elf.Open(buildGoSource(t, tc.src, tc.env...))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			d, err := f.DWARF()
			if err != nil {
				t.Fatal(err)
			}
			want := everyStruct(t, d, layoutStructs)
			got, err := findStructs(d, layoutStructs...)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || got["runtime.g"] == nil {
				t.Errorf("found %d structs, the whole walk %d: %v", len(got), len(want), want)
			}
			for n, off := range want {
				typ, err := d.Type(off)
				if err != nil {
					t.Fatal(err)
				}
				if got[n] != typ {
					t.Errorf("%s: %v, the whole walk's at %#x", n, got[n], off)
				}
			}
			if tc.name == "labels" && got["runtime/pprof.labelMap"] == nil && got["internal/runtime/pprof/label.Set"] == nil {
				t.Errorf("no label type in a program that sets labels")
			}
		})
	}
}

package breakpadsym

import (
	"reflect"
	"strings"
	"testing"
)

// sample is a symbol file as dump_syms writes one (mdcrash.c's, cut
// down), with a public symbol, a multiple-name FUNC and damaged records.
const sample = `MODULE Linux x86_64 09958A4CE8C5C5F0B2163E78826AB5730 mdcrash
INFO CODE_ID 4C8A9509C5E8F0C5B2163E78826AB573198CE5AA
FILE 0 /src/mdcrash.c
FILE 1 /usr/include/x86_64-linux-gnu/bits/unistd.h
FUNC 11c9 11 0 store
11c9 6 55 0
11cf a 56 0
11d9 1 57 0
FUNC m 11da 10 0 middle
11da 5 60 0
11df a 61 1
FUNC zz 10 0 broken
PUBLIC 2000 0 after_all
PUBLIC m 1000 0 early
STACK CFI INIT 11c9 11 .cfa: $rsp 8 + .ra: .cfa -8 + ^
STACK CFI INIT 1020 b0 .cfa: $rsp 16 + .ra: .cfa -8 + ^
STACK CFI 1026 .cfa: $rsp 24 +
STACK CFI 1030 .cfa: $rsp 32 + $rbx: .cfa -24 + ^
STACK CFI 5000 .cfa: $rsp 8 +
STACK WIN 4 1000 10 0 0 0 0 0 0 1 $eip 4 + ^ =
`

func TestParseAndLookup(t *testing.T) {
	f, err := Parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "mdcrash" || f.ID != "09958A4CE8C5C5F0B2163E78826AB5730" || f.Arch != "x86_64" {
		t.Errorf("MODULE: %+v", f)
	}
	if f.Skipped != 2 { // the broken FUNC, the CFI delta outside its INIT
		t.Errorf("skipped %d records, want 2", f.Skipped)
	}
	tests := []struct {
		addr uint64
		want Location
		ok   bool
	}{
		{0x11c9, Location{Function: "store", FuncAddr: 0x11c9, File: "/src/mdcrash.c", Line: 55}, true},
		{0x11d0, Location{Function: "store", FuncAddr: 0x11c9, File: "/src/mdcrash.c", Line: 56}, true},
		{0x11e0, Location{Function: "middle", FuncAddr: 0x11da, File: "/usr/include/x86_64-linux-gnu/bits/unistd.h", Line: 61}, true},
		{0x11e9, Location{Function: "middle", FuncAddr: 0x11da}, true}, // past its last line record
		{0x1100, Location{Function: "early", FuncAddr: 0x1000, Public: true}, true},
		{0x11ea, Location{}, false}, // after middle, before the next public: a FUNC ended there
		{0x3000, Location{Function: "after_all", FuncAddr: 0x2000, Public: true}, true},
		{0x10, Location{}, false},
	}
	for _, tc := range tests {
		got, ok := f.Lookup(tc.addr)
		if ok != tc.ok || got != tc.want {
			t.Errorf("Lookup(%#x) = %+v %v, want %+v %v", tc.addr, got, ok, tc.want, tc.ok)
		}
	}
	cfi := []struct {
		addr uint64
		want map[string]string
	}{
		{0x11c9, map[string]string{".cfa": "$rsp 8 +", ".ra": ".cfa -8 + ^"}},
		{0x1025, map[string]string{".cfa": "$rsp 16 +", ".ra": ".cfa -8 + ^"}},
		{0x1026, map[string]string{".cfa": "$rsp 24 +", ".ra": ".cfa -8 + ^"}},
		{0x1040, map[string]string{".cfa": "$rsp 32 +", ".ra": ".cfa -8 + ^", "$rbx": ".cfa -24 + ^"}},
		{0x10d0, nil},
	}
	for _, tc := range cfi {
		got, _ := f.CFIRules(tc.addr)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("CFIRules(%#x) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, in := range []string{"", "FUNC 0 1 0 f\n", "MODULE Linux\n", strings.Repeat("x", maxLine+10)} {
		if _, err := Parse(strings.NewReader(in)); err == nil {
			t.Errorf("Parse(%.20q...) accepted", in)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("MODULE Linux x86 ID n\nFUNC 0 ffffffffffffffff 0 f\n0 ffffffffffffffff 1 0\nSTACK CFI INIT 0 ffffffffffffffff .cfa: $esp 4 +\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sf, err := Parse(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		for _, a := range []uint64{0, 1, 0x11c9, 0x1030, ^uint64(0)} {
			sf.Lookup(a)
			sf.CFIRules(a)
		}
	})
}

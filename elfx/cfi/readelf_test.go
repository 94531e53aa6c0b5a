package cfi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// cProgram has leaf and non-leaf functions, varargs, alloca (a frame
// pointer even with -fomit-frame-pointer), recursion and a noreturn path,
// so the compilers emit a variety of CFA instructions.
const cProgram = `
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <alloca.h>

__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }

__attribute__((noinline)) int sum(int n, ...) {
	va_list ap; int s = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++) s += va_arg(ap, int);
	va_end(ap);
	return s;
}

__attribute__((noinline)) int dyn(int n) {
	char *p = alloca(n + 16);
	memset(p, n, n + 16);
	return p[n / 2] + leaf(n);
}

__attribute__((noinline)) long rec(long n, long a, long b, long c, long d) {
	if (n <= 0) return a + b + c + d;
	return rec(n - 1, b, c, d, a + leaf((int)n)) * 3 + 1;
}

__attribute__((noreturn, noinline)) void die(const char *m) { fprintf(stderr, "%s\n", m); exit(2); }

int main(int argc, char **argv) {
	if (argc > 5) die("too many");
	long r = rec(argc * 7, 1, 2, 3, 4) + sum(3, argc, 2, 3) + dyn(argc * 20);
	printf("%ld\n", r);
	return 0;
}
`

// cxxProgram throws and catches, so its FDEs carry LSDA pointers and its
// CIEs a personality routine ("zPLR").
const cxxProgram = `
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

struct Guard { std::string s; ~Guard() { std::puts(s.c_str()); } };

__attribute__((noinline)) int thrower(int x) {
	Guard g{"unwound"};
	if (x > 1) throw std::runtime_error("boom " + std::to_string(x));
	return x;
}

__attribute__((noinline)) int catcher(int x) {
	std::vector<int> v(x + 3, 7);
	try { return thrower(x) + v[0]; }
	catch (const std::exception &e) { std::puts(e.what()); return -1; }
}

int main(int argc, char **) { return catcher(argc + 1) < 0 ? 1 : 0; }
`

// compareWithReadelf checks every CIE and FDE of tab against readelf's
// frames-interp dump of the same section: addresses, CIE fields and every
// row (location, CFA rule, register rules).
func compareWithReadelf(t *testing.T, tab *Table, rel *relSection) {
	t.Helper()
	fdes, err := tab.FDEs()
	if err != nil {
		t.Fatalf("FDEs: %v", err)
	}
	if len(fdes) != len(rel.fdes) {
		t.Fatalf("%d FDEs, readelf shows %d", len(fdes), len(rel.fdes))
	}
	cies, err := tab.CIEs()
	if err != nil {
		t.Fatalf("CIEs: %v", err)
	}
	if len(cies) != len(rel.cies) {
		t.Errorf("%d CIEs, readelf shows %d", len(cies), len(rel.cies))
	}
	for _, c := range cies {
		rc := rel.cies[c.Offset]
		if rc == nil {
			t.Errorf("CIE at %#x not in readelf", c.Offset)
			continue
		}
		if c.Augmentation != rc.aug || c.CodeAlign != rc.cf || c.DataAlign != rc.df || c.RAColumn != rc.ra {
			t.Errorf("CIE %#x: aug %q cf %d df %d ra %d; readelf %q %d %d %d", c.Offset,
				c.Augmentation, c.CodeAlign, c.DataAlign, c.RAColumn, rc.aug, rc.cf, rc.df, rc.ra)
		}
	}
	rowsChecked := 0
	for i, f := range fdes {
		rf := rel.fdes[i]
		if f.Offset != rf.off || f.CIE.Offset != rf.cie || f.Begin != rf.begin || f.End != rf.end {
			t.Errorf("FDE %d: off %#x cie %#x [%#x,%#x); readelf off %#x cie %#x [%#x,%#x)", i,
				f.Offset, f.CIE.Offset, f.Begin, f.End, rf.off, rf.cie, rf.begin, rf.end)
			continue
		}
		rows, err := f.Rows()
		if err != nil {
			t.Errorf("FDE %#x: Rows: %v", f.Offset, err)
			continue
		}
		if len(rf.rows) == 0 {
			// readelf prints no rows when the instructions are all
			// DW_CFA_nop: then the FDE is its CIE's initial row.
			if strings.Trim(string(f.Instructions), "\x00") != "" || len(rows) != 1 {
				t.Errorf("FDE %#x: readelf shows no rows, we have %d rows from % x", f.Offset, len(rows), f.Instructions)
			}
			continue
		}
		if len(rows) != len(rf.rows) {
			t.Errorf("FDE %#x: %d rows, readelf %d", f.Offset, len(rows), len(rf.rows))
			for _, r := range rows {
				t.Logf("  ours: %s", FormatRow(r, x86RegName, f.CIE.RAColumn))
			}
			continue
		}
		for j, r := range rows {
			if msg := compareRow(r, rf.rows[j], rf.colNames, f.CIE.RAColumn); msg != "" {
				t.Errorf("FDE %#x row %d: %s\n  ours:    %s\n  readelf: %#x %s %v", f.Offset, j, msg,
					FormatRow(r, x86RegName, f.CIE.RAColumn), rf.rows[j].loc, rf.rows[j].cfa, rf.rows[j].cells)
			}
			rowsChecked++
		}
	}
	t.Logf("%d FDEs, %d CIEs, %d rows agree with readelf", len(fdes), len(cies), rowsChecked)
}

func compareRow(r Row, rr relRow, cols []string, ra uint64) string {
	if r.Loc != rr.loc {
		return fmt.Sprintf("loc %#x, readelf %#x", r.Loc, rr.loc)
	}
	cfa := "exp"
	if r.CFA.Expr == nil {
		cfa = x86RegName(r.CFA.Reg) + signed(r.CFA.Offset)
	}
	if cfa != rr.cfa {
		return fmt.Sprintf("cfa %s, readelf %s", cfa, rr.cfa)
	}
	if len(rr.cells) != len(cols) {
		return fmt.Sprintf("readelf row has %d cells for %d columns", len(rr.cells), len(cols))
	}
	shown := map[uint64]bool{}
	for k, name := range cols {
		reg := ra
		if name != "ra" {
			var ok bool
			if reg, ok = x86RegNum(name); !ok {
				return "unknown readelf column " + name
			}
		}
		shown[reg] = true
		rule := r.Rule(reg)
		if !ruleMatches(rule, rr.cells[k]) {
			return fmt.Sprintf("%s: %v, readelf %s", name, rule, rr.cells[k])
		}
	}
	for reg, rule := range r.Regs {
		if rule.Kind != Unspecified && !shown[uint64(reg)] {
			return fmt.Sprintf("r%d has rule %v, readelf shows no column", reg, rule)
		}
	}
	return ""
}

func ruleMatches(rule Rule, cell string) bool {
	switch {
	case cell == "u":
		// readelf shows "u" both for DW_CFA_undefined and for a column
		// the FDE mentions but has no rule for at this row.
		return rule.Kind == Undefined || rule.Kind == Unspecified
	case cell == "s":
		return rule.Kind == SameValue
	case cell == "exp":
		return rule.Kind == Expression && rule.Expr != nil
	case cell == "vexp":
		return rule.Kind == ValExpression && rule.Expr != nil
	case len(cell) > 1 && (cell[0] == 'c' || cell[0] == 'v') && (cell[1] == '+' || cell[1] == '-'):
		n, err := strconv.ParseInt(cell[1:], 10, 64)
		if err != nil {
			return false
		}
		kind := Offset
		if cell[0] == 'v' {
			kind = ValOffset
		}
		return rule.Kind == kind && rule.Offset == n
	}
	// DW_CFA_register: "r<N> (<name>)".
	num, _, _ := strings.Cut(cell, " ")
	reg, err := strconv.ParseUint(strings.TrimPrefix(num, "r"), 10, 64)
	return err == nil && strings.HasPrefix(num, "r") && rule.Kind == Register && rule.Reg == reg
}

// checkLookups asks FDEForPC for the first, a middle and the last address
// of every FDE and compares with a linear search (the first FDE in section
// order that covers the address), with and without .eh_frame_hdr.
func checkLookups(t *testing.T, tab *Table, fdes []*FDE) {
	t.Helper()
	linear := func(pc uint64) *FDE {
		for _, f := range fdes {
			if f.Begin <= pc && pc < f.End {
				return f
			}
		}
		return nil
	}
	n := 0
	for _, f := range fdes {
		if f.End == f.Begin {
			continue
		}
		for _, pc := range []uint64{f.Begin, f.Begin + (f.End-f.Begin)/2, f.End - 1, f.Begin - 1, f.End} {
			want := linear(pc)
			got, err := tab.FDEForPC(pc)
			n++
			switch {
			case want == nil && !errors.Is(err, ErrNoFDE):
				t.Errorf("FDEForPC(%#x) = %v, %v; want ErrNoFDE", pc, got, err)
			case want != nil && err != nil:
				t.Errorf("FDEForPC(%#x): %v; want FDE %#x", pc, err, want.Offset)
			case want != nil && got.Offset != want.Offset:
				t.Errorf("FDEForPC(%#x) = FDE %#x; want %#x", pc, got.Offset, want.Offset)
			}
		}
	}
	if _, err := tab.FDEForPC(0); err != nil && !errors.Is(err, ErrNoFDE) {
		t.Errorf("FDEForPC(0): %v", err)
	}
	if _, err := tab.FDEForPC(^uint64(0)); !errors.Is(err, ErrNoFDE) {
		t.Errorf("FDEForPC(max): %v; want ErrNoFDE", err)
	}
	t.Logf("%d lookups agree with a linear search (header index: %v)", n, tab.HasHeaderIndex())
}

func TestEHFrameMatchesReadelf(t *testing.T) {
	cases := []struct {
		name, compiler, ext, src string
		flags                    []string
	}{
		{"gcc-O0", "gcc", ".c", cProgram, []string{"-O0"}},
		{"gcc-O2", "gcc", ".c", cProgram, []string{"-O2"}},
		{"gcc-O2-omitfp", "gcc", ".c", cProgram, []string{"-O2", "-fomit-frame-pointer"}},
		{"gcc-O0-fp", "gcc", ".c", cProgram, []string{"-O0", "-fno-omit-frame-pointer"}},
		{"gcc-O3-static", "gcc", ".c", cProgram, []string{"-O3", "-static"}},
		{"g++-O0-exceptions", "g++", ".cc", cxxProgram, []string{"-O0"}},
		{"g++-O2-exceptions", "g++", ".cc", cxxProgram, []string{"-O2"}},
		{"libc", "", "", "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := "/usr/lib/x86_64-linux-gnu/libc.so.6"
			if tc.compiler != "" {
				path = buildProgram(t, tc.compiler, tc.ext, tc.src, tc.flags...)
			}
			secs, order, ptr := readSections(t, path)
			eh, ok := secs[".eh_frame"]
			if !ok {
				t.Fatalf("%s has no .eh_frame", path)
			}
			hdr := secs[".eh_frame_hdr"]
			tab, err := NewEHFrame(eh.data, eh.addr, hdr.data, hdr.addr, order, ptr)
			if err != nil {
				t.Fatal(err)
			}
			compareWithReadelf(t, tab, runReadelf(t, path, ".eh_frame"))
			fdes, _ := tab.FDEs()
			if hdr.data != nil && !tab.HasHeaderIndex() {
				t.Errorf("valid .eh_frame_hdr not used")
			}
			checkLookups(t, tab, fdes)
			noHdr, err := NewEHFrame(eh.data, eh.addr, nil, 0, order, ptr)
			if err != nil {
				t.Fatal(err)
			}
			checkLookups(t, noHdr, fdes)
			if tc.compiler == "g++" {
				checkExceptionInfo(t, fdes)
			}
		})
	}
}

// checkExceptionInfo: g++ output must have a CIE with a personality
// routine and FDEs with LSDA pointers.
func checkExceptionInfo(t *testing.T, fdes []*FDE) {
	t.Helper()
	lsda, pers := 0, 0
	for _, f := range fdes {
		if f.LSDA != 0 {
			lsda++
		}
		if f.CIE.Personality != 0 && strings.Contains(f.CIE.Augmentation, "P") {
			pers++
		}
	}
	if lsda == 0 || pers == 0 {
		t.Errorf("g++ output: %d FDEs with LSDA, %d with a personality routine; want some of each", lsda, pers)
	}
}

func TestDebugFrameMatchesReadelf(t *testing.T) {
	base := []string{"-O2", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables"}
	cases := []struct {
		name  string
		flags []string
	}{
		{"g", []string{"-g"}},
		{"gdwarf-4", []string{"-gdwarf-4"}},
		{"gdwarf-5", []string{"-gdwarf-5"}},
		{"cie-v4", []string{"-g", "-Wa,--gdwarf-cie-version=4"}},
		{"cie-v3-O0", []string{"-g", "-O0", "-Wa,--gdwarf-cie-version=3"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := buildProgram(t, "gcc", ".c", cProgram, append(append([]string{}, base...), tc.flags...)...)
			secs, order, ptr := readSections(t, path)
			df, ok := secs[".debug_frame"]
			if !ok {
				t.Fatalf("no .debug_frame in %s", path)
			}
			tab, err := NewDebugFrame(df.data, 0, order, ptr)
			if err != nil {
				t.Fatal(err)
			}
			compareWithReadelf(t, tab, runReadelf(t, path, ".debug_frame"))
			fdes, _ := tab.FDEs()
			if len(fdes) == 0 {
				t.Fatal("no FDEs")
			}
			if strings.Contains(strings.Join(tc.flags, " "), "cie-version=4") && fdes[0].CIE.Version != 4 {
				t.Errorf("CIE version %d, want 4", fdes[0].CIE.Version)
			}
			checkLookups(t, tab, fdes)
		})
	}
}

package elfx

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

var gdbInfoSymbol = regexp.MustCompile(`^(.+?)(?: \+ (\d+))? in section (\S+)`)

// gdbSymbols asks gdb's `info symbol` about each address: the reference
// for which alias and which nearest symbol names an address.
func gdbSymbols(t *testing.T, file string, addrs []uint64) map[uint64]string {
	t.Helper()
	return gdbSymbolsBy(t, testenv.NeedTool(t, "gdb"), file, addrs)
}

// gdbSymbolsBy is gdbSymbols with the gdb to ask (gdb-multiarch for
// another arch's file).
func gdbSymbolsBy(t *testing.T, gdb, file string, addrs []uint64) map[uint64]string {
	t.Helper()
	args := []string{"-nx", "-batch"}
	for _, a := range addrs {
		args = append(args, "-ex", fmt.Sprintf("info symbol %#x", a))
	}
	args = append(args, file)
	lines := strings.Split(strings.TrimSpace(run(t, "", gdb, args...)), "\n")
	if len(lines) != len(addrs) {
		t.Fatalf("gdb printed %d lines for %d addresses", len(lines), len(addrs))
	}
	out := map[uint64]string{}
	for i, l := range lines {
		if m := gdbInfoSymbol.FindStringSubmatch(l); m != nil {
			off := m[2]
			if off == "" {
				off = "0"
			}
			out[addrs[i]] = m[1] + "+" + off
		}
	}
	return out
}

var cloneNumber = regexp.MustCompile(`\.(\d+)(\+\d+)$`)
var coldClone = regexp.MustCompile(`\.cold(\+\d+)$`)

// gdbStyle rewrites GCC clone suffixes of raw C symbol names the way gdb
// 13 prints them (recurse.part.0 as recurse.part, main.cold as
// main[cold]); addr2line and elfx keep the symbol table's spelling.
func gdbStyle(s string) string {
	s = coldClone.ReplaceAllString(s, "[cold]$1")
	return cloneNumber.ReplaceAllString(s, "$2")
}

func TestSymbolMatchesGDB(t *testing.T) {
	for _, lang := range []string{"c", "cc"} {
		t.Run(lang, func(t *testing.T) {
			dir := t.TempDir()
			var bin string
			if lang == "c" {
				bin = compile(t, dir, "gcc", "prog", "c", cProgram, "-O2", "-g")
			} else {
				bin = compile(t, dir, "g++", "prog", "cc", cxxProgram, "-O2", "-g")
			}
			o := mustOpen(t, bin)
			addrs := instructionAddrs(t, bin, func(fn string) bool { return !strings.Contains(fn, "@plt") })
			ref := gdbSymbols(t, bin, addrs)
			bad := 0
			for _, a := range addrs {
				want, wok := ref[a]
				s, ok := o.Symbol(a)
				got := ""
				if ok {
					got = s.Name + "+" + strconv.FormatUint(a-s.Addr, 10)
				}
				if !wok {
					if ok {
						bad++
						t.Errorf("%#x: gdb finds no symbol, Symbol = %s", a, got)
					}
					continue
				}
				if gdbStyle(got) != want {
					bad++
					if bad <= 10 {
						t.Errorf("%#x: Symbol = %q, gdb %q", a, got, want)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d addresses differ from gdb", bad, len(addrs))
			}
		})
	}
}

func TestSymbolAliasesAndLabels(t *testing.T) {
	dir := t.TempDir()
	bin := compile(t, dir, "gcc", "prog", "c", cProgram, "-O2", "-g")
	o := mustOpen(t, bin)
	real, ok1 := o.LookupSymbol("real_function")
	alias, ok2 := o.LookupSymbol("alias_function")
	if !ok1 || !ok2 || real.Addr != alias.Addr {
		t.Fatalf("real_function %+v %v, alias_function %+v %v", real, ok1, alias, ok2)
	}
	// The global symbol wins over the weak alias, every time.
	for i := 0; i < 3; i++ {
		if s, _ := o.Symbol(real.Addr + 1); s.Name != "real_function" {
			t.Fatalf("Symbol(real_function+1) = %q", s.Name)
		}
	}
	// asm_label has no size: found as the nearest preceding symbol.
	lbl, ok := o.LookupSymbol("asm_label")
	if !ok || lbl.Size != 0 {
		t.Fatalf("asm_label = %+v, %v", lbl, ok)
	}
	if s, ok := o.Symbol(lbl.Addr + 2); !ok || s.Name != "asm_label" {
		t.Errorf("Symbol(asm_label+2) = %+v, %v", s, ok)
	}
	if _, ok := o.Symbol(0); ok {
		t.Error("Symbol(0) found something")
	}
}

// TestSymbolNamesOutliveObject: names are read in place from the mapped
// string table, so the ones handed out must be copies that stay valid
// once the object is closed and unmapped.
func TestSymbolNamesOutliveObject(t *testing.T) {
	paths, _ := filepath.Glob("/lib/*-linux-gnu/libc.so.6")
	if len(paths) == 0 {
		testenv.Unavailable(t, "no libc.so.6")
	}
	o, err := Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	m, ok := o.LookupSymbol("malloc")
	if !ok {
		t.Fatal("no malloc")
	}
	s, ok := o.Symbol(m.Addr + 1)
	near := o.nearestSymbolName(m.Addr + 1)
	o.Close()
	// Reading an unmapped name would kill the test with SIGSEGV.
	if !ok || s.Name != "malloc" && !strings.Contains(s.Raw, "malloc") || near != s.Name || m.Raw == "" {
		t.Errorf("after Close: Symbol %+v %v, nearest %q, LookupSymbol %+v", s, ok, near, m)
	}
}

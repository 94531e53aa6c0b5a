// Package breakpadsym reads Breakpad symbol files (.sym, as dump_syms
// writes them): the MODULE line, FILE records, FUNC records with their
// line records, PUBLIC symbols and STACK CFI rules. It answers what a
// symbolizer asks of a module without its binary at hand: the function,
// source file and line at an address, and the CFI rules there. Addresses
// are module-relative, as in the file.
//
// Malformed records are skipped and counted; nothing in a file sizes an
// allocation.
package breakpadsym

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// File is a parsed symbol file.
type File struct {
	OS, Arch, ID, Name string // the MODULE line
	files              map[uint64]string
	funcs              []Func
	publics            []Public
	cfi                []cfiRange
	// Skipped counts the malformed records left out.
	Skipped int
}

// Func is a FUNC record and its line records.
type Func struct {
	Addr, Size uint64
	Name       string
	Lines      []Line
}

// Line is a line record: Size bytes from Addr are line Line of FileNum.
type Line struct {
	Addr, Size uint64
	Line       int
	FileNum    uint64
}

// Public is a PUBLIC record: a symbol without size.
type Public struct {
	Addr uint64
	Name string
}

// cfiRange is a STACK CFI INIT record and the STACK CFI records that
// change its rules at addresses within it, in file order.
type cfiRange struct {
	addr, size uint64
	init       string
	deltas     []cfiDelta
}

type cfiDelta struct {
	addr  uint64
	rules string
}

// maxLine bounds one record: a C++ name can be long, not megabytes.
const maxLine = 1 << 20

// Parse reads a symbol file.
func Parse(r io.Reader) (*File, error) {
	f := &File{files: map[uint64]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var fn *Func
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		kind, rest, _ := strings.Cut(line, " ")
		var ok bool
		switch kind {
		case "MODULE":
			if n != 1 {
				f.Skipped++
				continue
			}
			p := strings.SplitN(rest, " ", 4)
			if len(p) != 4 {
				return nil, fmt.Errorf("line 1: MODULE record %q", line)
			}
			f.OS, f.Arch, f.ID, f.Name = p[0], p[1], p[2], p[3]
			ok = true
		case "FILE":
			var num string
			var name string
			num, name, ok = strings.Cut(rest, " ")
			var v uint64
			if v, ok = parseDec(num, ok); ok {
				f.files[v] = name
			}
		case "FUNC":
			fn = nil
			var fu Func
			if fu, ok = parseFunc(rest); ok {
				f.funcs = append(f.funcs, fu)
				fn = &f.funcs[len(f.funcs)-1]
			}
		case "PUBLIC":
			fn = nil
			var p Public
			if p, ok = parsePublic(rest); ok {
				f.publics = append(f.publics, p)
			}
		case "STACK":
			fn = nil
			ok = f.parseStack(rest)
		case "INFO", "INLINE", "INLINE_ORIGIN":
			ok = true // not used
		default:
			if fn == nil {
				break
			}
			var l Line
			if l, ok = parseLine(line); ok {
				fn.Lines = append(fn.Lines, l)
			}
		}
		if !ok {
			f.Skipped++
		}
		if n == 1 && kind != "MODULE" {
			return nil, fmt.Errorf("line 1: %q is not a MODULE record", line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading symbol file: %w", err)
	}
	if f.Name == "" {
		return nil, fmt.Errorf("empty symbol file")
	}
	sort.SliceStable(f.funcs, func(i, j int) bool { return f.funcs[i].Addr < f.funcs[j].Addr })
	for i := range f.funcs {
		ls := f.funcs[i].Lines
		sort.SliceStable(ls, func(a, b int) bool { return ls[a].Addr < ls[b].Addr })
	}
	sort.SliceStable(f.publics, func(i, j int) bool { return f.publics[i].Addr < f.publics[j].Addr })
	sort.SliceStable(f.cfi, func(i, j int) bool { return f.cfi[i].addr < f.cfi[j].addr })
	return f, nil
}

func parseHex(s string) (uint64, bool) {
	v, err := strconv.ParseUint(s, 16, 64)
	return v, err == nil
}

func parseDec(s string, ok bool) (uint64, bool) {
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}

// dropMulti removes FUNC's and PUBLIC's optional "m" (several names
// folded to one address).
func dropMulti(s string) string {
	if strings.HasPrefix(s, "m ") {
		return s[2:]
	}
	return s
}

// parseFunc reads "[m] ADDR SIZE PARAM_SIZE NAME".
func parseFunc(rest string) (Func, bool) {
	p := strings.SplitN(dropMulti(rest), " ", 4)
	if len(p) != 4 {
		return Func{}, false
	}
	addr, ok1 := parseHex(p[0])
	size, ok2 := parseHex(p[1])
	_, ok3 := parseHex(p[2])
	return Func{Addr: addr, Size: size, Name: p[3]}, ok1 && ok2 && ok3 && addr+size >= addr
}

// parsePublic reads "[m] ADDR PARAM_SIZE NAME".
func parsePublic(rest string) (Public, bool) {
	p := strings.SplitN(dropMulti(rest), " ", 3)
	if len(p) != 3 {
		return Public{}, false
	}
	addr, ok1 := parseHex(p[0])
	_, ok2 := parseHex(p[1])
	return Public{Addr: addr, Name: p[2]}, ok1 && ok2
}

// parseLine reads a line record "ADDR SIZE LINE FILENUM".
func parseLine(s string) (Line, bool) {
	p := strings.Fields(s)
	if len(p) != 4 {
		return Line{}, false
	}
	addr, ok1 := parseHex(p[0])
	size, ok2 := parseHex(p[1])
	line, err := strconv.Atoi(p[2])
	file, ok4 := parseDec(p[3], true)
	return Line{Addr: addr, Size: size, Line: line, FileNum: file}, ok1 && ok2 && err == nil && ok4 && addr+size >= addr
}

// parseStack reads "CFI INIT ADDR SIZE RULES" and "CFI ADDR RULES";
// STACK WIN records (Windows' frame data) are accepted and not kept.
func (f *File) parseStack(rest string) bool {
	kind, rest, _ := strings.Cut(rest, " ")
	switch kind {
	case "WIN":
		return true
	case "CFI":
	default:
		return false
	}
	if r, ok := strings.CutPrefix(rest, "INIT "); ok {
		p := strings.SplitN(r, " ", 3)
		if len(p) != 3 {
			return false
		}
		addr, ok1 := parseHex(p[0])
		size, ok2 := parseHex(p[1])
		if !ok1 || !ok2 || addr+size < addr {
			return false
		}
		f.cfi = append(f.cfi, cfiRange{addr: addr, size: size, init: p[2]})
		return true
	}
	a, rules, ok := strings.Cut(rest, " ")
	addr, ok1 := parseHex(a)
	if !ok || !ok1 || len(f.cfi) == 0 {
		return false
	}
	last := &f.cfi[len(f.cfi)-1]
	if addr < last.addr || addr-last.addr >= last.size {
		return false
	}
	last.deltas = append(last.deltas, cfiDelta{addr, rules})
	return true
}

// Location is what the file says of an address.
type Location struct {
	Function string
	// FuncAddr is the function's (or public symbol's) first address.
	FuncAddr uint64
	File     string // "" when no line record covers the address
	Line     int
	// Public: the name is from a PUBLIC record (no size, no lines).
	Public bool
}

// Lookup returns the function, file and line at module-relative addr.
func (f *File) Lookup(addr uint64) (Location, bool) {
	i := sort.Search(len(f.funcs), func(i int) bool { return f.funcs[i].Addr > addr }) - 1
	if i >= 0 && addr-f.funcs[i].Addr < f.funcs[i].Size {
		fn := &f.funcs[i]
		loc := Location{Function: fn.Name, FuncAddr: fn.Addr}
		j := sort.Search(len(fn.Lines), func(j int) bool { return fn.Lines[j].Addr > addr }) - 1
		if j >= 0 && addr-fn.Lines[j].Addr < fn.Lines[j].Size {
			loc.File, loc.Line = f.files[fn.Lines[j].FileNum], fn.Lines[j].Line
		}
		return loc, true
	}
	// A public symbol covers up to the next symbol (as Breakpad's
	// processor reads it), not past a FUNC that starts after it.
	k := sort.Search(len(f.publics), func(k int) bool { return f.publics[k].Addr > addr }) - 1
	if k < 0 {
		return Location{}, false
	}
	p := f.publics[k]
	if i >= 0 && f.funcs[i].Addr > p.Addr {
		return Location{}, false
	}
	return Location{Function: p.Name, FuncAddr: p.Addr, Public: true}, true
}

// CFIRange is a STACK CFI INIT record and the STACK CFI records that
// change its rules within it, in file order.
type CFIRange struct {
	Addr, Size uint64
	Init       string // "REG: EXPR ..." in force from Addr
	Deltas     []CFIDelta
}

// CFIDelta is a STACK CFI record: rules that change at Addr.
type CFIDelta struct {
	Addr  uint64
	Rules string
}

// CFI returns the STACK CFI range that covers addr.
func (f *File) CFI(addr uint64) (CFIRange, bool) {
	i := sort.Search(len(f.cfi), func(i int) bool { return f.cfi[i].addr > addr }) - 1
	if i < 0 || addr-f.cfi[i].addr >= f.cfi[i].size {
		return CFIRange{}, false
	}
	r := &f.cfi[i]
	out := CFIRange{Addr: r.addr, Size: r.size, Init: r.init}
	for _, d := range r.deltas {
		out.Deltas = append(out.Deltas, CFIDelta{d.addr, d.rules})
	}
	return out, true
}

// CFIRules returns the CFI rules in force at addr: the INIT record's,
// with the changes of every STACK CFI record at or below addr applied,
// as register name -> postfix expression (".cfa", ".ra", "$rbp", ...).
func (f *File) CFIRules(addr uint64) (map[string]string, bool) {
	r, ok := f.CFI(addr)
	if !ok {
		return nil, false
	}
	rules := map[string]string{}
	if ParseRules(r.Init, func(reg, expr string) { rules[reg] = expr }) != nil {
		return nil, false
	}
	for _, d := range r.Deltas {
		if d.Addr > addr {
			break
		}
		if ParseRules(d.Rules, func(reg, expr string) { rules[reg] = expr }) != nil {
			return nil, false
		}
	}
	return rules, true
}

// ParseRules splits "REG: EXPR REG: EXPR ..." and calls set for each
// register in order; an error for a rule without a register or an
// expression.
func ParseRules(s string, set func(reg, expr string)) error {
	var reg string
	var expr []string
	flush := func() error {
		if reg == "" && len(expr) == 0 {
			return nil
		}
		if reg == "" || len(expr) == 0 {
			return fmt.Errorf("CFI rule %q: register %q with %d terms", s, reg, len(expr))
		}
		set(reg, strings.Join(expr, " "))
		return nil
	}
	for _, tok := range strings.Fields(s) {
		if strings.HasSuffix(tok, ":") {
			if err := flush(); err != nil {
				return err
			}
			reg, expr = strings.TrimSuffix(tok, ":"), nil
			continue
		}
		expr = append(expr, tok)
	}
	return flush()
}

// Store is a symbol store: DIR/NAME/ID/NAME.sym, as Breakpad's
// processors and symupload lay symbols out.
type Store []string

// Path returns the path of the symbol file for module name (the file's
// base name) with debug identifier id, "" when no directory holds one.
func (s Store) Path(name, id string) string {
	name = filepath.Base(name)
	if name == "." || name == "/" || name == ".." || id == "" || strings.ContainsAny(id, "/\\") || id == ".." {
		return ""
	}
	for _, dir := range s {
		p := filepath.Join(dir, name, id, name+".sym")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// Open parses the symbol file at path.
func Open(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	f, err := Parse(bufio.NewReaderSize(fh, 1<<16))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

package elfx

import (
	"debug/dwarf"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/coreunwind/coreunwind/internal/mapfault"
)

// dwarfIndex is the address index over one object's DWARF: compile unit
// ranges built once, everything inside a unit built on its first use.
type dwarfIndex struct {
	name string      // object name, for errors
	d    *dwarf.Data // nil for a lazy index until a unit needs all of it
	cus  []*cuIndex
	byPC intervalIndex // over cus, or listedUnits (unit)

	// A lazy index's listed units: their offsets in .debug_info and
	// their cuIndex, made on first use (unit), by the index byPC holds.
	listedOffs  []uint64
	listedUnits []atomic.Pointer[cuIndex]

	// lazy is set when the index was built from .debug_aranges: units
	// are read one by one as lookups reach them (dwarflazy.go).
	lazy *lazyDWARF
	// alt is the supplementary file (altlink.go), nil for none.
	alt *altDWARF
	// unlisted: the lazy index's own index over the units
	// .debug_aranges leaves out (unlisted.go); an address it does not
	// cover is in no unit.
	unlisted bool

	// names is keyed by section offsets (a unit's base plus the offset
	// in its dwarf.Data).
	names sync.Map // dwarf.Offset -> string: resolved function names
}

// unit returns the unit at index i of byPC.
func (x *dwarfIndex) unit(i int32) *cuIndex {
	if x.listedUnits == nil {
		return x.cus[i]
	}
	if cu := x.listedUnits[i].Load(); cu != nil {
		return cu
	}
	l := x.lazy
	l.unitsMu.Lock()
	cu := l.unitStartingAt(x.listedOffs[i])
	l.unitsMu.Unlock()
	x.listedUnits[i].Store(cu)
	return cu
}

// allUnits returns every unit of the index, making the lazy index's
// listed ones (tests).
func (x *dwarfIndex) allUnits() []*cuIndex {
	if x.listedUnits == nil {
		return x.cus
	}
	out := make([]*cuIndex, len(x.listedUnits))
	for i := range out {
		out[i] = x.unit(int32(i))
	}
	return out
}

// cuIndex is one compile unit. Its line table and scope tree are built
// together on first use.
type cuIndex struct {
	off   dwarf.Offset // of the unit header in .debug_info
	d     *dwarf.Data  // the Data entry and its DIEs come from
	base  dwarf.Offset // section offset of d's offset 0
	entry *dwarf.Entry // nil for a lazy unit not read yet

	lazy     *lazyDWARF // the lazy index's sections; nil for an eager unit
	openOnce sync.Once
	openErr  error
	// opened: the unit was opened (its pages are not given back:
	// unitpages.go).
	opened atomic.Bool
	// refAddr: d reads the unit's DW_FORM_ref_addr values as constants
	// (section offsets: see openUnit).
	refAddr bool
	// global: d is the lazy index's dwarf.Data over every unit
	// (openUnit's last resort).
	global bool
	// alt is the supplementary file the unit's DIEs may refer into
	// (altlink.go), nil for none.
	alt *altDWARF
	// skip steps over the unit's DIEs without decoding them
	// (dieskip.go), made by its first walk from its header and where its
	// abbreviation table ends (abbrevEnd, 0 for a lazy unit's table not
	// parsed); nil where debug/dwarf reads them all.
	skip      *dieSkipper
	header    unitHeader
	abbrevEnd uint64
	// origins reads the unit's DIEs for funcName without opening it
	// (originreader.go), made on first use; nil where it cannot.
	originOnce sync.Once
	origins    *originReader

	once      sync.Once
	err       error
	linesOnce sync.Once
	linesErr  error
	seqs      []*lineSeq
	seqPC     intervalIndex // over seqs
	lineMu    sync.Mutex    // serializes lr: lookups decode sequences
	lr        *dwarf.LineReader
	// prog decodes the line program where it can (lineprogram.go);
	// nil: lr does.
	prog    *lineProgram
	fileTab []*dwarf.LineFile // indexed by DW_AT_call_file
	paths   map[*dwarf.LineFile]string
	// scopes are the unit's subprograms with code outside any other;
	// the inlined calls inside each are read when a lookup reaches it
	// (scopetree.go).
	scopes []scope
	funcs  intervalIndex // over scopes
	bodies []*funcBody   // in DIE order
	quals  []qualAt      // of the subprograms the first walk met
	// qualNodes are the scopes with names the first walk met.
	qualNodes []qualNode
}

// lineRow is one row of a line table.
type lineRow struct {
	addr      uint64
	file      *dwarf.LineFile
	line, col int32
}

// lineSeq is one sequence of a line program, covering [start, end). Its
// rows are not kept: a big LTO unit's line program has hundreds of
// thousands of rows, often in one sequence, and a report needs a few
// (keeping them all was 17 MB of heap for a Python core). Marks every
// lineMarkEvery rows say where to decode from for an address.
type lineSeq struct {
	start, end uint64
	marks      []lineMark // by key; marks[0] is the sequence's start
}

// lineMark is a place in a sequence to decode rows from.
type lineMark struct {
	key  uint64               // the address of the first row kept from here
	last uint64               // the last row kept before here (the monotonic filter's state)
	any  bool                 // whether a row was kept before here
	at   lineState            // where prog decodes from
	pos  *dwarf.LineReaderPos // where lr decodes from, without prog
}

// lineMarkEvery is how many rows apart marks are: a lookup decodes at
// most that many rows before the one it wants.
const lineMarkEvery = 128

// scope is a subprogram or inlined_subroutine with code. Lexical blocks
// are folded into their enclosing scope: they never name a frame.
type scope struct {
	ranges   [][2]uint64
	die      dwarf.Offset // where the name comes from (via origin chains)
	callFile int64        // for inlined scopes: DW_AT_call_file
	callLine int64
	callCol  int64
	inlined  bool
	children []int32
	// body: a subprogram of the unit's first walk whose children were
	// left for a lookup to read (nil where it has none).
	body *funcBody
}

func (s *scope) contains(pc uint64) bool {
	for _, r := range s.ranges {
		if pc >= r[0] && pc < r[1] {
			return true
		}
	}
	return false
}

// newDWARFIndex reads the top entry of every compile unit and indexes
// their address ranges. Units without ranges of their own (some assemblers
// emit none) are indexed by their line table's sequences instead.
func newDWARFIndex(name string, d *dwarf.Data) (*dwarfIndex, error) {
	x := &dwarfIndex{name: name, d: d}
	var ivs []interval
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			if len(x.cus) == 0 {
				return nil, fmt.Errorf("elfx: %s: reading DWARF units: %w", name, err)
			}
			break // keep what was indexed before the damage
		}
		if e == nil {
			break
		}
		r.SkipChildren()
		if e.Tag != dwarf.TagCompileUnit && e.Tag != dwarf.TagSkeletonUnit && e.Tag != dwarf.TagPartialUnit {
			continue
		}
		cu := &cuIndex{off: e.Offset, d: d, entry: e}
		idx := int32(len(x.cus))
		x.cus = append(x.cus, cu)
		if ranges, _ := d.Ranges(e); len(ranges) == 0 {
			// Read whole now: a reference into a unit without code
			// (LTO's early-debug units) is an offset in the one
			// dwarf.Data here, and the names around the DIE it names
			// are known once its unit is read (funcName).
			cu.load(x)
		}
		for _, rg := range cu.codeRanges(x) {
			ivs = append(ivs, interval{lo: rg[0], hi: rg[1], idx: idx})
		}
	}
	x.byPC = newIntervalIndex(ivs)
	return x, nil
}

// codeRanges are the addresses the unit's code covers: its top DIE's
// ranges, else (some assemblers give none) its line program's
// sequences, read without its DIEs.
func (cu *cuIndex) codeRanges(x *dwarfIndex) [][2]uint64 {
	ranges, _ := cu.d.Ranges(cu.entry)
	if len(ranges) > 0 {
		return ranges
	}
	if cu.lines(x) != nil {
		return nil
	}
	for _, s := range cu.seqs {
		ranges = append(ranges, [2]uint64{s.start, s.end})
	}
	return ranges
}

// load builds the unit's line table and scope tree once.
func (cu *cuIndex) load(x *dwarfIndex) error {
	cu.once.Do(func() {
		defer func() {
			if p := recover(); p != nil {
				mapfault.Reraise(p)
				cu.err = fmt.Errorf("elfx: %s: malformed DWARF unit at %#x (%v)", x.name, cu.off, p)
			}
		}()
		if cu.entry == nil {
			if err := cu.open(); err != nil {
				cu.err = fmt.Errorf("elfx: %s: DWARF unit at %#x: %w", x.name, cu.off, err)
				return
			}
		}
		lerr := cu.lines(x)
		serr := cu.loadScopes(x)
		cu.err = errors.Join(lerr, serr)
		if cu.err != nil {
			cu.err = fmt.Errorf("elfx: %s: DWARF unit at %#x: %w", x.name, cu.off, cu.err)
		}
	})
	return cu.err
}

// lines reads the unit's line program once (load reads it with the
// DIEs; an index may need only its sequences: codeRanges).
func (cu *cuIndex) lines(x *dwarfIndex) error {
	cu.linesOnce.Do(func() {
		defer func() {
			if p := recover(); p != nil {
				mapfault.Reraise(p)
				cu.linesErr = fmt.Errorf("malformed line table (%v)", p)
			}
		}()
		cu.linesErr = cu.loadLines(x)
	})
	return cu.linesErr
}

// loadLines reads the whole line program and splits it into
// sequences, each found by address (LineReader.SeekPC assumes sorted
// sequences and misses PCs when they are not); their rows are kept when
// a lookup needs them (rowsOf).
func (cu *cuIndex) loadLines(x *dwarfIndex) error {
	if cu.lazy != nil {
		if err := cu.lazy.ensureLines(cu.entry); err != nil {
			return fmt.Errorf("line table: %w", err)
		}
	}
	lr, err := cu.d.LineReader(cu.withAltStrings())
	if err != nil {
		return fmt.Errorf("line table: %w", err)
	}
	if lr == nil {
		return nil
	}
	if prog := cu.lineProgram(); prog != nil {
		switch err := cu.splitSequences(&lineRows{p: prog, s: lineStart(0)}); {
		case err == nil:
			cu.prog = prog
		case !errors.Is(err, errLineRefused):
			return err
		}
	}
	if cu.prog == nil {
		if err := cu.splitSequences(&lineRows{lr: lr}); err != nil {
			return err
		}
	}
	cu.lr = lr
	cu.fileTab = lr.Files()
	cu.paths = make(map[*dwarf.LineFile]string, len(cu.fileTab))
	compDir, _ := cu.stringAttr(cu.entry, dwarf.AttrCompDir)
	// DWARF 5 line tables have a file 0 (DWARF 4 ones start at 1), and
	// their relative directories are relative to the compilation
	// directory, which debug/dwarf does not join as it does for DWARF 4.
	dwarf5 := len(cu.fileTab) > 0 && cu.fileTab[0] != nil
	for _, f := range cu.fileTab {
		if f == nil {
			continue
		}
		name := f.Name
		// Entries in directory 0 (the compilation directory itself)
		// already carry it: glibc's "./nptl" + "pthread_kill.c" comes
		// back as "./nptl/pthread_kill.c", and must not become
		// "nptl/nptl/pthread_kill.c".
		if dwarf5 && compDir != "" && !path.IsAbs(name) && !hasDirPrefix(name, compDir) {
			name = path.Join(compDir, name)
		}
		cu.paths[f] = name
	}
	return nil
}

// splitSequences reads every row of the unit's line program and splits
// them into sequences, with a mark every lineMarkEvery rows.
func (cu *cuIndex) splitSequences(rows *lineRows) error {
	cu.seqs = nil
	var ivs []interval
	var seq lineSeq
	var mark lineMark
	n, marking := 0, false // rows of the sequence read; a mark waits for its key
	for {
		if n%lineMarkEvery == 0 {
			// The first row is always kept: a sequence has a mark
			// once it has a row, and seq.end is the last row kept.
			mark, marking = rows.mark(), true
			mark.last, mark.any = seq.end, len(seq.marks) > 0
		}
		addr, end, err := rows.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if end {
			if len(seq.marks) > 0 && addr > seq.start {
				ivs = append(ivs, interval{lo: seq.start, hi: addr, idx: int32(len(cu.seqs))})
				seq.end = addr
				cu.seqs = append(cu.seqs, &lineSeq{start: seq.start, end: seq.end, marks: seq.marks})
			}
			seq, n, marking = lineSeq{}, 0, false
			continue
		}
		n++
		if len(seq.marks) > 0 && addr < seq.end {
			continue // not monotonic: corrupt; ignore the row
		}
		if len(seq.marks) == 0 {
			seq.start = addr
		}
		if marking {
			mark.key = addr
			seq.marks = append(seq.marks, mark)
			marking = false
		}
		seq.end = addr // the last row kept, until the sequence ends
	}
	cu.seqPC = newIntervalIndex(ivs)
	return nil
}

// hasDirPrefix reports whether the relative path name lies under dir.
func hasDirPrefix(name, dir string) bool {
	name, dir = path.Clean(name), path.Clean(dir)
	return dir != "." && strings.HasPrefix(name, dir+"/")
}

// files is the unit's file table, complete once the line program has
// been read.
func (cu *cuIndex) files() []*dwarf.LineFile { return cu.fileTab }

// fileName is a line table file's full path ("" for none).
func (cu *cuIndex) fileName(f *dwarf.LineFile) string {
	if f == nil {
		return ""
	}
	if p, ok := cu.paths[f]; ok {
		return p
	}
	return f.Name
}

// rowAt decodes the row of s covering pc: the last row kept at or below
// it, rows kept as loadLines kept them (non-monotonic ones left out).
func (cu *cuIndex) rowAt(s *lineSeq, pc uint64) (lineRow, bool) {
	m := sort.Search(len(s.marks), func(j int) bool { return s.marks[j].key > pc }) - 1
	if m < 0 {
		return lineRow{}, false
	}
	mk := &s.marks[m]
	rows := lineRows{p: cu.prog, s: mk.at, lr: cu.lr}
	if cu.prog == nil {
		cu.lineMu.Lock()
		defer cu.lineMu.Unlock()
		cu.lr.Seek(*mk.pos)
	}
	last, any := mk.last, mk.any
	var row lineRow
	found := false
	for {
		addr, end, err := rows.next()
		if err != nil || end {
			break
		}
		if any && addr < last {
			continue
		}
		any, last = true, addr
		if addr > pc {
			break
		}
		file, line, col := rows.row()
		row, found = lineRow{addr: addr, file: cu.fileAt(file), line: int32(line), col: int32(col)}, true
	}
	return row, found
}

// lookupLine returns the line table row covering pc: the last row at or
// below pc in the sequence containing it.
func (cu *cuIndex) lookupLine(pc uint64) (lineRow, bool) {
	var row lineRow
	found := false
	cu.seqPC.each(pc, func(i int32) bool {
		row, found = cu.rowAt(cu.seqs[i], pc)
		return !found
	})
	return row, found
}

// attrMIPSLinkageName is DW_AT_MIPS_linkage_name, the pre-DWARF-4
// spelling of DW_AT_linkage_name that GCC still emits with -gstrict-dwarf
// off for DWARF 2/3.
const attrMIPSLinkageName dwarf.Attr = 0x2007

// hasScopes reports whether the unit's language may put functions inside
// namespaces, classes or modules: any but C.
func hasScopes(cu *cuIndex) bool {
	lang, _ := cu.entry.Val(dwarf.AttrLanguage).(int64)
	return languageHasScopes(lang)
}

// languageHasScopes is hasScopes for the unit's DW_AT_language (0 for
// none).
func languageHasScopes(lang int64) bool {
	switch lang {
	case 0x1, 0x2, 0xc, 0x1d, 0x2c: // DW_LANG_C89, C, C99, C11, C17
		return false
	}
	return true
}

func joinQual(outer, name string) string {
	if outer == "" {
		return name
	}
	return outer + "::" + name
}

// funcName resolves the name gdb prints for the function a DIE stands
// for: its DW_AT_name (found along the DW_AT_abstract_origin /
// DW_AT_specification chain) qualified by the namespaces and classes
// around the DIE that carries it; failing that, the first linkage name on
// the chain demangled without its parameter list.
func (x *dwarfIndex) funcName(cu *cuIndex, off dwarf.Offset) string {
	if v, ok := x.names.Load(cu.base + off); ok {
		return v.(string)
	}
	name, ok := x.readFuncName(cu, off, true)
	if !ok {
		name, _ = x.readFuncName(cu, off, false)
	}
	x.names.Store(cu.base+off, name)
	return name
}

// readFuncName reads funcName's answer along the chain from the DIE at
// off of cu. byReader: the DIEs of other units the chain reaches by
// DW_FORM_ref_addr are read by their units' originReader, without
// opening those units (originreader.go); ok is false where one could
// not be, for the caller to read the chain again with byReader false,
// every DIE through a dwarf.Data.
func (x *dwarfIndex) readFuncName(cu *cuIndex, off dwarf.Offset, byReader bool) (string, bool) {
	name, linkage, qual := "", "", ""
	at, next := cu, off
	var r *originReader // where the chain is read by at's reader, at section offset pos
	var pos uint64
	for depth := 0; depth < 8; depth++ {
		if r != nil {
			r.mu.Lock()
			d, ok := r.die(pos)
			q, qualified := "", ok && d.hasName && name == "" && r.scopes
			if qualified {
				q, ok = r.qualifier(pos)
			}
			r.done()
			r.mu.Unlock()
			if !ok {
				return "", false
			}
			if d.hasLinkage && d.linkage != "" {
				linkage = d.linkage
			} else if d.hasMips && d.mips != "" {
				linkage = d.mips
			}
			if d.hasName && name == "" {
				name, qual = d.name, q
			}
			if linkage != "" || !d.hasOrigin || d.origin == pos {
				break
			}
			if at, r = x.originUnit(cu, at, d.origin); r == nil {
				return "", false
			}
			pos = d.origin
			continue
		}
		e, err := at.entryAt(next)
		if err != nil || e == nil {
			break
		}
		if s, ok := at.stringAttr(e, dwarf.AttrLinkageName); ok && s != "" {
			linkage = s
		} else if s, ok := at.stringAttr(e, attrMIPSLinkageName); ok && s != "" {
			linkage = s
		}
		if s, ok := at.stringAttr(e, dwarf.AttrName); ok && name == "" {
			name = s
			if hasScopes(at) {
				// The names around a DIE of another unit (LTO's
				// early-debug units, dwz's partial units) count too:
				// gdb prints "units::step", not "step" (scopepath.go).
				qual = x.qualifier(cu, at, next)
			}
		}
		if linkage != "" {
			break
		}
		if v, ok := at.refAddrOrigin(e); ok && byReader {
			if at, r = x.originUnit(cu, at, v); r == nil {
				return "", false
			}
			pos = v
			continue
		}
		t, ref, ok := at.origin(e)
		if !ok || (t == at && ref == next) {
			break
		}
		at, next = t, ref
	}
	switch {
	case isRustSymbol(linkage):
		// Rust's scopes are types and impl blocks ("{impl#3}"); its
		// demangled symbols are the names Rust's own backtraces print.
		name = Demangle(linkage)
	case name != "" && qual != "":
		name = qual + "::" + name
	case linkage != "":
		if d := stripParams(Demangle(linkage)); d != "" {
			name = d
		}
	}
	return name, true
}

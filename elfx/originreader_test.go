package elfx

import (
	"debug/dwarf"
	"encoding/binary"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestOriginReaderAsDWARFData: for every DIE of the units with code that
// names a frame through DW_AT_abstract_origin or DW_AT_specification,
// the name funcName reads with the originReaders of the units those
// refer to (originreader.go) is the one it reads through each unit's
// dwarf.Data: on the units program built with -flto (compressed DWARF
// too) and processed by dwz, and on Debian's LTO-built python3.11 with
// python3.11-dbg. Most chains through DW_FORM_ref_addr must be read so,
// or the reader does not serve the programs it is for.
func TestOriginReaderAsDWARFData(t *testing.T) {
	for _, tc := range []struct {
		name  string
		open  func(t *testing.T) *Object
		units int // at most this many units with code are read (0: all)
	}{
		{"lto", func(t *testing.T) *Object { return mustOpen(t, unitsProgram(t, "lto", false, "-flto")) }, 0},
		{"lto-zlib", func(t *testing.T) *Object { return mustOpen(t, unitsProgram(t, "ltoz", false, "-flto", "-gz=zlib")) }, 0},
		{"dwz", func(t *testing.T) *Object { return mustOpen(t, unitsProgram(t, "dwz", true)) }, 0},
		{"python3.11-dbg", pythonWithDebug, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.open(t)
			x, err := o.dwarfIndex()
			if err != nil || x == nil || x.lazy == nil {
				t.Fatalf("lazy index: %v, %v", x, err)
			}
			checked, refAddr, byReader := 0, 0, 0
			eachUnitDIE(t, x, tc.units, func(cu *cuIndex, e *dwarf.Entry) {
				if e.Val(dwarf.AttrAbstractOrigin) == nil && e.Val(dwarf.AttrSpecification) == nil {
					return
				}
				got, ok := x.readFuncName(cu, e.Offset, true)
				want, _ := x.readFuncName(cu, e.Offset, false)
				if ok && got != want {
					t.Errorf("unit at %#x, DIE %#x: %q read by the origin readers, %q through dwarf.Data", cu.off, e.Offset, got, want)
				}
				checked++
				if _, isRefAddr := cu.refAddrOrigin(e); isRefAddr {
					refAddr++
					if ok {
						byReader++
					}
				}
			})
			t.Logf("%d DIEs with origins, %d through DW_FORM_ref_addr, %d of them read by origin readers", checked, refAddr, byReader)
			if refAddr == 0 || byReader < refAddr*9/10 {
				t.Errorf("%d of %d chains through DW_FORM_ref_addr read by origin readers", byReader, refAddr)
			}
		})
	}
}

// pythonWithDebug is Debian's python3.11 with its debug file
// (python3.11-dbg): LTO-built, its units refer to each other with
// DW_FORM_ref_addr.
func pythonWithDebug(t *testing.T) *Object {
	const python = "/usr/bin/python3.11"
	if _, err := os.Stat(python); err != nil {
		testenv.Unavailable(t, python+" is not installed (Debian package python3.11)")
	}
	o := mustOpen(t, python)
	if _, err := o.AttachDebugFile(nil); err != nil {
		testenv.Unavailable(t, "python3.11's debug file (python3.11-dbg) is not installed: "+err.Error())
	}
	return o
}

// TestAbbrevDecls: the declarations the pass over a table finds
// (abbrevInfo.decls, from which an origin reader's skipper makes its
// shapes) are where a lazy skipper's own pass finds them; a table that
// declares a code twice has none (debug/dwarf takes the last
// declaration, the skippers the first), and its unit no origin reader.
func TestAbbrevDecls(t *testing.T) {
	var abbrev []byte
	for code := byte(1); code <= 100; code++ {
		abbrev = append(abbrev, code, 0x2e, 1, 0x01, 0x13, 0x03, 0x0e, 0x3b, 0x0f, 0x11, 0x01, 0, 0)
	}
	table := append(slices.Clone(abbrev), 0)
	h := unitHeader{end: 0, version: 4, addrSize: 8}
	lazy, err := newLazyDIESkipper(nil, table, h, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	got := abbrevTable(table, 0)
	if !got.parsed || !slices.Equal(got.decls, lazy.decls[:len(got.decls)]) || len(got.decls) != 101 {
		t.Errorf("declarations %v, the lazy skipper's %v", got.decls, lazy.decls)
	}
	// The same table after a prefix: positions from the table's start.
	prefixed := append([]byte{1, 0x11, 0, 0, 0, 0}, table...)
	if at := abbrevTable(prefixed, 6); !slices.Equal(at.decls, got.decls) {
		t.Errorf("declarations of the table at 6: %v, at 0: %v", at.decls, got.decls)
	}
	twice := append(slices.Clone(abbrev), 7, 0x11, 1, 0x03, 0x08, 0, 0, 0)
	if d := abbrevTable(twice, 0); !d.parsed || d.decls != nil {
		t.Errorf("a table declaring code 7 twice: parsed %v, declarations %v", d.parsed, d.decls)
	}
	large := append(slices.Clone(abbrev), 0x80, 0x80, 0x04, 0x11, 1, 0x03, 0x08, 0, 0, 0) // code 65536
	if d := abbrevTable(large, 0); !d.parsed || d.decls != nil {
		t.Errorf("a table with code 65536: parsed %v, declarations %v", d.parsed, d.decls)
	}
	// A unit whose table declares its top DIE's code twice.
	info := []byte{0x0c, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8, 1, 0, 0, 0, 0}
	l := bytesLazyDWARF(info, []byte{1, 0x11, 0, 0, 0, 1, 0x11, 0, 0, 0, 0})
	if r := l.newOriginReader(&cuIndex{lazy: l}); r != nil {
		t.Error("an origin reader for a unit whose table declares a code twice")
	}
	l = bytesLazyDWARF(info, []byte{1, 0x11, 0, 0, 0, 0})
	if r := l.newOriginReader(&cuIndex{lazy: l}); r == nil {
		t.Error("no origin reader for a unit of one DIE")
	}
}

// TestOriginReadersConcurrent: frames named by several goroutines at
// once through one lazy index (a report's threads), sharing its units'
// origin readers and their shapes, are those one goroutine names
// through another index. Run with -race.
func TestOriginReadersConcurrent(t *testing.T) {
	exe := unitsProgram(t, "lto", false, "-flto")
	o := mustOpen(t, exe)
	shared, err := o.newLazyDWARFIndex()
	if err != nil || shared == nil {
		t.Fatalf("lazy index: %v, %v", shared, err)
	}
	alone, err := o.newLazyDWARFIndex()
	if err != nil || alone == nil {
		t.Fatalf("lazy index: %v, %v", alone, err)
	}
	addrs := instructionAddrs(t, exe, func(string) bool { return true })
	want := make([][]SourceFrame, len(addrs))
	for i, a := range addrs {
		want[i], _ = alone.sourceFrames(a, o)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range addrs {
				i := (k + g*len(addrs)/4) % len(addrs)
				got, _ := shared.sourceFrames(addrs[i], o)
				if !slices.EqualFunc(got, want[i], func(a, b SourceFrame) bool { return a == b }) {
					t.Errorf("%#x: %+v, alone %+v", addrs[i], got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
	readers := 0
	for _, cu := range shared.lazy.units {
		if cu.origins != nil {
			readers++
		}
	}
	if readers == 0 {
		t.Error("no origin reader was made: the test proves nothing")
	}
}

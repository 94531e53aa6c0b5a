package gopclntab

import (
	"encoding/binary"
	"errors"
)

// ModuleData is what the runtime's moduledata of a module says about its
// address ranges: where a stripped executable's runtime.firstmoduledata
// is and what it points to.
type ModuleData struct {
	Addr             uint64 // of the moduledata itself
	Text, EText      uint64
	Types, ETypes    uint64
	GoFunc           uint64 // moduledata.gofunc, the go:func.* symbol
	NoPtrData, Data  uint64
	BSS, NoPtrBSS    uint64
	MinPC, MaxPC     uint64
	PCHeader, RoData uint64
}

// Word indexes of moduledata's fields (runtime/symtab.go), the same from
// Go 1.20 to 1.26: pcHeader, six slices (funcnametab, cutab, filetab,
// pctab, pclntable, ftab), findfunctab, minpc, maxpc, then pairs of
// section bounds.
const (
	mdPCHeader  = 0
	mdFuncnames = 1
	mdMinPC     = 20
	mdMaxPC     = 21
	mdText      = 22
	mdEText     = 23
	mdNoPtrData = 24
	mdData      = 26
	mdBSS       = 28
	mdNoPtrBSS  = 30
	mdTypes     = 37
	mdETypes    = 38
	mdRoData    = 39
	mdGoFunc    = 40
	mdWords     = 41
)

// Segment is initialized data of the executable at a link-time address.
type Segment struct {
	Addr uint64
	Data []byte
}

// errNoModuleData says no segment holds a moduledata for the table.
var errNoModuleData = errors.New("gopclntab: no moduledata points to the table")

// FindModuleData finds the moduledata that points to the table, which
// the executable has at link-time address pcHeader, in the given data
// segments (the ELF .go.module section where Go 1.26 puts it, else
// .noptrdata and .data), as tools reading stripped Go programs do: the
// first word equal to pcHeader whose following fields agree with the
// table (its name table's address and its function count) and whose text
// is at or after the address the table was parsed with (the .text
// section's start: an external link, cgo's, puts C code before Go's
// text; function entries are offsets from the moduledata's Text).
func (t *Table) FindModuleData(pcHeader uint64, segs []Segment) (ModuleData, error) {
	ptr := t.ptrSize
	var want [8]byte
	put := func(b []byte, v uint64) {
		if ptr == 4 {
			t.order.PutUint32(b, uint32(v))
		} else {
			t.order.PutUint64(b, v)
		}
	}
	put(want[:], pcHeader)
	funcnames := pcHeader + uint64(len(t.data)-len(t.funcnames))
	for _, s := range segs {
		d := s.Data
		for off := 0; off+mdWords*ptr <= len(d); off += ptr {
			if string(d[off:off+ptr]) != string(want[:ptr]) {
				continue
			}
			w := func(i int) uint64 { return readWord(t.order, ptr, d[off+i*ptr:]) }
			if w(mdFuncnames) != funcnames || w(mdText) < t.text || w(mdEText) < w(mdText) {
				continue
			}
			return ModuleData{
				Addr: s.Addr + uint64(off), PCHeader: pcHeader,
				Text: w(mdText), EText: w(mdEText), MinPC: w(mdMinPC), MaxPC: w(mdMaxPC),
				NoPtrData: w(mdNoPtrData), Data: w(mdData), BSS: w(mdBSS), NoPtrBSS: w(mdNoPtrBSS),
				Types: w(mdTypes), ETypes: w(mdETypes), RoData: w(mdRoData), GoFunc: w(mdGoFunc),
			}, nil
		}
	}
	return ModuleData{}, errNoModuleData
}

func readWord(order binary.ByteOrder, ptr int, b []byte) uint64 {
	if ptr == 4 {
		return uint64(order.Uint32(b))
	}
	return order.Uint64(b)
}

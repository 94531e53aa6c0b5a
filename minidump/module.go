package minidump

import (
	"encoding/hex"
	"fmt"
	"path"
	"strings"
)

// Module is MINIDUMP_MODULE: a loaded image, its name and its debug
// identity.
type Module struct {
	Base          uint64
	Size          uint64
	Checksum      uint32
	TimeDateStamp uint32
	Name          string // the path the process loaded it from
	// CodeView is the module's CodeView record, nil when it has none.
	CodeView *CodeView
}

// CodeView signatures.
const (
	cvSignaturePDB70   = 0x53445352 // "RSDS": a PDB 7.0 GUID and age
	cvSignatureElf     = 0x4270454c // "BpEL": an ELF build ID
	cvSignaturePDB20   = 0x3031424e // "NB10"
	cvPDB70HeaderSize  = 24
	cvPDB20HeaderSize  = 16
	moduleSize         = 108
	maxCodeViewRecord  = 64 << 10
	moduleNameRVAOff   = 20
	moduleCodeViewOff  = 76
	moduleVersionStart = 24
)

// CodeView is a module's CodeView record: a PDB 7.0 record (GUID, age,
// file name) or Breakpad's ELF record (the build ID).
type CodeView struct {
	Signature uint32
	GUID      [16]byte // PDB70: the GUID as stored; ELF: the build ID's first 16 bytes
	Age       uint32
	PDBName   string
	// BuildID is an ELF record's identifier: the GNU build ID, or, for
	// a module that has none, Breakpad's hash of its first text page.
	BuildID []byte
}

func (d *Dump) readModuleList(b []byte, off uint64) error {
	entries, n, err := list(b, off, 4, moduleSize)
	d.Modules = make([]Module, 0, n)
	for i := 0; i < n; i++ {
		e := entries[i*moduleSize:]
		m := Module{Base: le.Uint64(e), Size: uint64(le.Uint32(e[8:])), Checksum: le.Uint32(e[12:]), TimeDateStamp: le.Uint32(e[16:])}
		name, nerr := d.data.utf16String(le.Uint32(e[moduleNameRVAOff:]))
		if nerr != nil {
			d.warnf("module %d at 0x%x: name: %v", i, m.Base, nerr)
		}
		m.Name = name
		if loc := locationAt(e[moduleCodeViewOff:]); loc.Size > 0 {
			cv, cerr := d.codeView(loc)
			if cerr != nil {
				d.warnf("module %s: CodeView record: %v", m.Name, cerr)
			}
			m.CodeView = cv
		}
		d.Modules = append(d.Modules, m)
	}
	return err
}

func (d *Dump) codeView(loc location) (*CodeView, error) {
	if loc.Size > maxCodeViewRecord {
		return nil, formatErr(uint64(loc.RVA), "record of %d bytes", loc.Size)
	}
	b, err := d.data.bytes(loc)
	if err != nil {
		return nil, err
	}
	if len(b) < 4 {
		return nil, formatErr(uint64(loc.RVA), "record of %d bytes", len(b))
	}
	cv := &CodeView{Signature: le.Uint32(b)}
	switch cv.Signature {
	case cvSignaturePDB70:
		if len(b) < cvPDB70HeaderSize {
			return nil, formatErr(uint64(loc.RVA), "PDB70 record of %d bytes", len(b))
		}
		copy(cv.GUID[:], b[4:20])
		cv.Age = le.Uint32(b[20:])
		cv.PDBName = cString(b[cvPDB70HeaderSize:])
	case cvSignatureElf:
		cv.BuildID = append([]byte(nil), b[4:]...)
		copy(cv.GUID[:], cv.BuildID)
	case cvSignaturePDB20:
		if len(b) < cvPDB20HeaderSize {
			return nil, formatErr(uint64(loc.RVA), "PDB20 record of %d bytes", len(b))
		}
		cv.Age = le.Uint32(b[12:])
		cv.PDBName = cString(b[cvPDB20HeaderSize:])
	default:
		return nil, formatErr(uint64(loc.RVA), "unknown signature 0x%08x", cv.Signature)
	}
	return cv, nil
}

func cString(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// BuildID is the module's GNU build ID in hex, "" when its record is not
// Breakpad's ELF record.
func (m *Module) BuildID() string {
	if m.CodeView == nil || m.CodeView.Signature != cvSignatureElf {
		return ""
	}
	return hex.EncodeToString(m.CodeView.BuildID)
}

// CodeID is minidump_stackwalk's code identifier: the build ID for an
// ELF module, else "".
func (m *Module) CodeID() string { return m.BuildID() }

// DebugID is Breakpad's debug identifier, the directory name of the
// module's symbols in a symbol store: the GUID's fields in upper-case
// hex (the first three read little-endian) followed by the age; an ELF
// module's GUID is its build ID's first 16 bytes, zero-padded, and age 0.
// "" when the module has no CodeView record.
func (m *Module) DebugID() string {
	if m.CodeView == nil {
		return ""
	}
	return DebugID(m.CodeView.GUID, m.CodeView.Age)
}

// DebugID formats a GUID and age as Breakpad's debug identifier.
func DebugID(g [16]byte, age uint32) string {
	return fmt.Sprintf("%08X%04X%04X%X%X", le.Uint32(g[:]), le.Uint16(g[4:]), le.Uint16(g[6:]), g[8:], age)
}

// DebugIDFromBuildID is the debug identifier Breakpad gives an ELF
// module with build ID id (dump_syms names .sym directories by it).
func DebugIDFromBuildID(id []byte) string {
	var g [16]byte
	copy(g[:], id)
	return DebugID(g, 0)
}

// DebugFile is the module's debug file name as a symbol store names it:
// the PDB name when the record has one, else the module's base name.
func (m *Module) DebugFile() string {
	if m.CodeView != nil && m.CodeView.PDBName != "" {
		return m.CodeView.PDBName
	}
	return path.Base(m.Name)
}

// ModuleAt returns the module whose image contains addr, nil if none.
func (d *Dump) ModuleAt(addr uint64) *Module {
	for i := range d.Modules {
		m := &d.Modules[i]
		if addr >= m.Base && addr-m.Base < m.Size {
			return m
		}
	}
	return nil
}

package analyze

import (
	"debug/elf"
	"encoding/binary"
	"fmt"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/unwind"
)

// tablesDecoder decodes the unwind table of one machine's objects, for
// machines whose objects carry their own format (IA-64, PA-RISC, ARM
// EXIDX). Each lives in its own file (tables_<arch>.go) and registers
// itself in tablesDecoders; every other machine's objects are listed from
// their DWARF CFI (tables_cfi.go).
type tablesDecoder func(obj *elfx.Object, path, section string) (*report.Tables, error)

var tablesDecoders = map[elf.Machine]tablesDecoder{}

// Tables decodes the unwind tables of the ELF object at path, as the
// `coreunwind tables` command prints them: section is the table to list
// ("" for the object's default: .eh_frame, else .debug_frame, or the
// machine's own table).
func Tables(path, section string) (*report.Tables, error) {
	obj, err := elfx.Open(path)
	if err != nil {
		return nil, err
	}
	defer obj.Close()
	f := obj.ELF()
	var t *report.Tables
	if decode, ok := tablesDecoders[f.Machine]; ok {
		t, err = decode(obj, path, section)
	} else {
		arch := corefile.ArchName(f.Machine, f.Class, f.ByteOrder)
		regName := func(r uint64) string { return "" }
		if a, aerr := unwind.LookupArch(arch); aerr == nil {
			regName = func(r uint64) string { return a.RegName(int(r)) }
		}
		t, err = cfiTables(obj, path, section, arch, regName)
	}
	if err != nil {
		return nil, err
	}
	t.File = path
	if t.ByteOrder == "" {
		t.ByteOrder = "little"
		if obj.ByteOrder() == binary.BigEndian {
			t.ByteOrder = "big"
		}
	}
	return t, nil
}

// errSection is the error for a --section the object's machine has no
// such table for.
func errSection(section, want string) error {
	return fmt.Errorf("--section %q: want %s", section, want)
}

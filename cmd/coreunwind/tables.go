package main

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/x86_64"
)

func runTables(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("coreunwind tables", stderr)
	var format, section string
	fs.StringVar(&format, "format", "text", "output format: text or json")
	fs.StringVar(&section, "section", "", "table to print: .eh_frame or .debug_frame (default: .eh_frame, else .debug_frame)")
	pos, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout)
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		return usageError(stderr, fmt.Errorf("%w: tables takes one FILE", errUsage))
	}
	if format != "text" && format != "json" {
		return usageError(stderr, fmt.Errorf("%w: --format %q: want text or json", errUsage, format))
	}
	t, err := buildTables(pos[0], section)
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind tables: %v\n", err)
		return exitNoCore
	}
	if format == "json" {
		err = report.WriteTablesJSON(stdout, t)
	} else {
		err = report.WriteTablesText(stdout, t)
	}
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind tables: %v\n", err)
		return exitOutput
	}
	return exitOK
}

// buildTables decodes the CFI of an x86_64 object. Other machines' tables
// (.IA_64.unwind, .PARISC.unwind) come with their arch packages.
func buildTables(path, section string) (*report.Tables, error) {
	obj, err := elfx.Open(path)
	if err != nil {
		return nil, err
	}
	defer obj.Close()
	if obj.Machine() != elf.EM_X86_64 {
		return nil, fmt.Errorf("%s: unwind tables of %v objects are not supported yet", path, obj.Machine())
	}
	eh, dbg, terr := obj.UnwindTables()
	t := &report.Tables{File: path, Arch: "x86_64", ByteOrder: "little"}
	if obj.ByteOrder() == binary.BigEndian {
		t.ByteOrder = "big"
	}
	if terr != nil {
		t.Warnings = append(t.Warnings, terr.Error())
	}
	tab := eh
	switch section {
	case ".debug_frame":
		tab = dbg
	case "", ".eh_frame":
		if tab == nil && section == "" {
			tab = dbg
		}
	default:
		return nil, fmt.Errorf("--section %q: want .eh_frame or .debug_frame", section)
	}
	if tab == nil {
		return nil, fmt.Errorf("%s: no CFI (.eh_frame or .debug_frame)", path)
	}
	t.Section = tab.Section()
	fdes, err := tab.FDEs()
	if err != nil {
		t.Warnings = append(t.Warnings, err.Error())
	}
	for _, f := range fdes {
		e := report.TableEntry{Start: report.Hex(f.Begin), End: report.Hex(f.End)}
		if s, ok := obj.Symbol(f.Begin); ok && s.Addr == f.Begin {
			e.Function = report.Ptr(s.Name)
		}
		rows, err := f.Rows()
		if err != nil {
			t.Warnings = append(t.Warnings, fmt.Sprintf("FDE %#x..%#x: %v", f.Begin, f.End, err))
		}
		for _, r := range rows {
			e.Records = append(e.Records, cfi.FormatRow(r, x86_64.RegName, f.CIE.RAColumn))
		}
		t.Entries = append(t.Entries, e)
	}
	return t, nil
}

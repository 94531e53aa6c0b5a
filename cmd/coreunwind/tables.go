package main

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/report"
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

// tablesBuilder decodes the unwind table of one machine's objects. Each
// architecture's builder lives in its own file (tables_<arch>.go) and
// registers itself in tablesBuilders.
type tablesBuilder func(obj *elfx.Object, path, section string) (*report.Tables, error)

var tablesBuilders = map[elf.Machine]tablesBuilder{}

func buildTables(path, section string) (*report.Tables, error) {
	obj, err := elfx.Open(path)
	if err != nil {
		return nil, err
	}
	defer obj.Close()
	build, ok := tablesBuilders[obj.Machine()]
	if !ok {
		return nil, fmt.Errorf("%s: unwind tables of %v objects are not supported", path, obj.Machine())
	}
	t, err := build(obj, path, section)
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

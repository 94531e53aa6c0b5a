package main

import (
	"fmt"
	"io"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/report"
)

func runTables(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("coreunwind tables")
	var format, section string
	fs.StringVar(&format, "format", "text", "output format: text or json")
	fs.StringVar(&section, "section", "", "table to print: .eh_frame or .debug_frame (default: .eh_frame, else .debug_frame)")
	pos, code, done := parseFlags(fs, args, stdout, stderr)
	if done {
		return code
	}
	if len(pos) != 1 {
		return usageError(stderr, fmt.Errorf("%w: tables takes one FILE", errUsage))
	}
	if format != "text" && format != "json" {
		return usageError(stderr, fmt.Errorf("%w: --format %q: want text or json", errUsage, format))
	}
	t, err := analyze.Tables(pos[0], section)
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind: tables: %v\n", err)
		return exitcode.NoCore
	}
	if format == "json" {
		err = report.WriteTablesJSON(stdout, t)
	} else {
		err = report.WriteTablesText(stdout, t)
	}
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind: tables: %v\n", err)
		return exitcode.Output
	}
	return exitcode.OK
}

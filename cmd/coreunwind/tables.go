package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/cliflag"
	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/report"
)

func runTables(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("coreunwind tables", stderr)
	var format, section string
	fs.StringVar(&format, "format", "text", "output format: text or json")
	fs.StringVar(&section, "section", "", "table to print: .eh_frame or .debug_frame (default: .eh_frame, else .debug_frame)")
	pos, err := cliflag.ParseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout)
		return exitcode.OK
	}
	if err != nil {
		return exitcode.Usage
	}
	if len(pos) != 1 {
		return usageError(stderr, fmt.Errorf("%w: tables takes one FILE", errUsage))
	}
	if format != "text" && format != "json" {
		return usageError(stderr, fmt.Errorf("%w: --format %q: want text or json", errUsage, format))
	}
	t, err := analyze.Tables(pos[0], section)
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind tables: %v\n", err)
		return exitcode.NoCore
	}
	if format == "json" {
		err = report.WriteTablesJSON(stdout, t)
	} else {
		err = report.WriteTablesText(stdout, t)
	}
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind tables: %v\n", err)
		return exitcode.Output
	}
	return exitcode.OK
}

package main

import (
	"fmt"
	"io"
)

func runTables(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "coreunwind tables: not yet implemented")
	return exitUsage
}

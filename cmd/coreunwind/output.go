package main

import (
	"fmt"
	"io"

	"github.com/coreunwind/coreunwind/outfile"
)

// -o FILE (and the core --dump and gcore write of a running process) are
// the only files coreunwind writes, through package outfile:
// never over an input, and replaced only by a whole report.

// checkOutput returns a usage error when out, the -o path, is one of
// inputs (outfile.CheckNotInput).
func checkOutput(out string, inputs []string) error {
	if err := outfile.CheckNotInput(out, inputs); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	return nil
}

// openOutput opens -o FILE (out), or returns stdout; the closer takes
// the writing's error and returns the first error of writing, closing
// and renaming into place (a full disk shows up there). After an error,
// FILE is as it was before.
func openOutput(out string, stdout io.Writer) (io.Writer, func(werr error) error, error) {
	if out == "" {
		return stdout, func(werr error) error { return werr }, nil
	}
	f, err := outfile.Create(out)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Commit, nil
}

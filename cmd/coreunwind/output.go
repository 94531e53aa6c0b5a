package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/coreunwind/coreunwind/internal/regfile"
)

// -o FILE is the only file coreunwind writes. Two rules keep it from
// destroying what it was given:
//
//   - it must not be one of the inputs: not the same file (device and
//     inode, so other names and hard links count) as an input file, and
//     not an existing file inside an input directory (triage reads
//     those); checkOutput refuses such a path before anything is read;
//   - the report is written to a temporary file beside FILE and renamed
//     over it only once all of it is written, so a failure leaves FILE
//     as it was and no partial file behind.

// checkOutput returns a usage error when out, the -o path, is one of
// inputs: files, or directories every file of which is read (triage's;
// not a --search-path, where only the files looked for are inputs).
// Inputs that do not exist are skipped: reading them fails on its own.
func checkOutput(out string, inputs []string) error {
	if out == "" {
		return nil
	}
	outInfo, err := os.Stat(out)
	if err != nil {
		return nil // a new file is nobody's input
	}
	if outInfo.IsDir() {
		return fmt.Errorf("%w: -o %s: is a directory", errUsage, out)
	}
	if !outInfo.Mode().IsRegular() {
		return nil // a terminal, /dev/null, a pipe: written in place, never replaced
	}
	for _, in := range inputs {
		inInfo, err := os.Stat(in)
		if err != nil {
			continue
		}
		if os.SameFile(inInfo, outInfo) {
			return fmt.Errorf("%w: -o %s: is the input %s (it would be overwritten)", errUsage, out, in)
		}
		if inInfo.IsDir() && inside(out, inInfo) {
			return fmt.Errorf("%w: -o %s: is a file in the input directory %s (it would be overwritten)", errUsage, out, in)
		}
	}
	return nil
}

// inside reports whether the file at path lies in the directory dir,
// at any depth: whether one of the directories above path (symbolic
// links resolved) is dir.
func inside(path string, dir os.FileInfo) bool {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return false
	}
	for d := filepath.Dir(real); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && os.SameFile(fi, dir) {
			return true
		}
		if d == filepath.Dir(d) {
			return false
		}
	}
}

// outputFile is -o FILE being written.
type outputFile struct {
	*os.File
	path string // FILE, written through File (a temporary file) until commit
	temp bool
}

// createOutput starts writing out. A regular file (or a new one) is
// written to a temporary file in its directory (the directory of the
// file a symbolic link names, so the link stays); anything else (a
// terminal, /dev/null, a named pipe the user reads from) is opened and
// written in place.
func createOutput(out string) (*outputFile, error) {
	target := out
	if real, err := filepath.EvalSymlinks(out); err == nil {
		target = real
	}
	fi, err := os.Stat(target)
	if err == nil && !fi.Mode().IsRegular() {
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return nil, err
		}
		return &outputFile{File: f, path: out}, nil
	}
	perm := 0o666 &^ umask()
	if err == nil {
		perm = fi.Mode().Perm() // replacing a file keeps its mode, as writing into it would
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("-o %s: %w", out, err)
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("-o %s: %w", out, err)
	}
	return &outputFile{File: f, path: target, temp: true}, nil
}

// commit finishes the output: closed and, when written to a temporary
// file, renamed over FILE. When werr (the writing's error) is set, or
// anything fails, the temporary file is removed and FILE left as it
// was. It returns the first error.
func (o *outputFile) commit(werr error) error {
	err := werr
	if cerr := o.Close(); err == nil {
		err = cerr
	}
	if !o.temp {
		return err
	}
	if err == nil {
		err = os.Rename(o.Name(), o.path)
	}
	if err != nil {
		os.Remove(o.Name())
	}
	return err
}

// umask is the process's file mode creation mask, read from
// /proc/self/status (setting it to read it back would race with files
// created meanwhile); 022 when the kernel does not say.
func umask() os.FileMode {
	f, err := regfile.Open("/proc/self/status")
	if err != nil {
		return 0o022
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Umask:"); ok {
			if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
				return os.FileMode(m) & os.ModePerm
			}
		}
	}
	return 0o022
}

// openOutput opens -o FILE (out), or returns stdout; the closer takes
// the writing's error and returns the first error of writing, closing
// and renaming into place (a full disk shows up there). After an error,
// FILE is as it was before.
func openOutput(out string, stdout io.Writer) (io.Writer, func(werr error) error, error) {
	if out == "" {
		return stdout, func(werr error) error { return werr }, nil
	}
	f, err := createOutput(out)
	if err != nil {
		return nil, nil, err
	}
	return f, f.commit, nil
}

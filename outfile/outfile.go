// Package outfile writes the one file a coreunwind command is asked to
// write (-o FILE) without destroying what it was given. Two rules:
//
//   - it must not be one of the inputs: not the same file (device and
//     inode, so other names and hard links count) as an input file, and
//     not an existing file inside an input directory (a batch reads
//     those); CheckNotInput refuses such a path before anything is read;
//   - the output is written to a temporary file beside FILE and renamed
//     over it only once all of it is written (Create, then Commit), so a
//     failure leaves FILE as it was and no partial file behind.
//
// coreunwind and coreunwind-beam (a module of its own) share it.
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/coreunwind/coreunwind/internal/regfile"
)

// ErrIsInput is wrapped by CheckNotInput's error: the output path is
// (or lies in) an input, or is a directory.
var ErrIsInput = errors.New("the output would overwrite an input")

// CheckNotInput returns an error wrapping ErrIsInput when out, the -o
// path, is one of inputs: files, or directories every file of which is
// read (a batch's; not a search path, where only the files looked for
// are inputs). Inputs that do not exist are skipped: reading them fails
// on its own. The error's text starts "-o OUT: ".
func CheckNotInput(out string, inputs []string) error {
	if out == "" {
		return nil
	}
	outInfo, err := os.Stat(out)
	if err != nil {
		return nil // a new file is nobody's input
	}
	if outInfo.IsDir() {
		return &inputError{fmt.Sprintf("-o %s: is a directory", out)}
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
			return &inputError{fmt.Sprintf("-o %s: is the input %s (it would be overwritten)", out, in)}
		}
		if inInfo.IsDir() && inside(out, inInfo) {
			return &inputError{fmt.Sprintf("-o %s: is a file in the input directory %s (it would be overwritten)", out, in)}
		}
	}
	return nil
}

// inputError is CheckNotInput's error: its text says which input.
type inputError struct{ msg string }

func (e *inputError) Error() string { return e.msg }
func (e *inputError) Unwrap() error { return ErrIsInput }

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

// File is -o FILE being written: write to it, then Commit.
type File struct {
	*os.File
	path string // FILE, written through File (a temporary file) until Commit
	temp bool
}

// Create starts writing out. A regular file (or a new one) is written to
// a temporary file in its directory (the directory of the file a
// symbolic link names, so the link stays), which Commit renames over it;
// anything else (a terminal, /dev/null, a named pipe the user reads
// from) is opened and written in place.
func Create(out string) (*File, error) {
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
		return &File{File: f, path: out}, nil
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
	return &File{File: f, path: target, temp: true}, nil
}

// Commit finishes the output: closed and, when written to a temporary
// file, renamed over FILE. When werr (the writing's error) is set, or
// anything fails, the temporary file is removed and FILE left as it
// was. It returns the first error.
func (o *File) Commit(werr error) error {
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

package triage

import (
	"os"
	"sync"
	"time"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/internal/tempname"
)

// runDir is a batch's temporary directory, where archive members are
// extracted. It is made when first needed: a batch of plain cores needs
// none, and must work where TMPDIR is unusable. Its name carries the
// process's pid (tempname.Pattern), so that a later run can sweep it
// should this one be killed; it is removed at the end of the batch and
// on SIGINT, SIGTERM and SIGHUP (removeOnSignal).
type runDir struct {
	parent string // "": os.TempDir()

	mu     sync.Mutex
	path   string
	err    error
	remove func()
}

// get returns the directory, made on the first call; an error (the
// same one on every call) is the parent's, named by corefile.TempDirError.
func (d *runDir) get() (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.path == "" && d.err == nil {
		d.path, d.remove, d.err = TempDir(d.parent, "triage")
	}
	return d.path, d.err
}

// removeAll deletes the directory and all in it, if it was made.
func (d *runDir) removeAll() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.path != "" {
		d.remove()
		d.path = ""
	}
}

// TempDir makes a temporary directory for a run of kind ("triage",
// "beam") in parent ("": os.TempDir()), named with the process's pid
// (tempname.Pattern) so that SweepStaleTemp can tell one a killed
// process left, and removed if the process gets SIGINT, SIGTERM or
// SIGHUP (removeOnSignal). remove deletes it and all in it. An error
// names parent (corefile.TempDirError).
func TempDir(parent, kind string) (dir string, remove func(), err error) {
	dir, err = os.MkdirTemp(parent, tempname.Pattern(kind))
	if err != nil {
		return "", nil, corefile.TempDirError(parent, err)
	}
	unregister := removeOnSignal(dir)
	return dir, func() {
		os.RemoveAll(dir)
		unregister()
	}, nil
}

// SweepStaleTemp removes what killed coreunwind processes (their pid
// gone) left in parent ("": os.TempDir()) before now, and returns it
// (tempname.SweepStale). A run calls it before making its own.
func SweepStaleTemp(parent string) []string {
	return tempname.SweepStale(parent, time.Now())
}

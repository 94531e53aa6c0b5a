package triage

import (
	"os"
	"sync"

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

	mu         sync.Mutex
	path       string
	err        error
	unregister func()
}

// get returns the directory, made on the first call; an error (the
// same one on every call) is the parent's, named by corefile.TempDirError.
func (d *runDir) get() (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.path == "" && d.err == nil {
		p, err := os.MkdirTemp(d.parent, tempname.Pattern("triage"))
		if err != nil {
			d.err = corefile.TempDirError(d.parent, err)
		} else {
			d.path, d.unregister = p, removeOnSignal(p)
		}
	}
	return d.path, d.err
}

// remove deletes the directory and all in it, if it was made.
func (d *runDir) remove() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.path != "" {
		os.RemoveAll(d.path)
		d.unregister()
		d.path = ""
	}
}

package triage

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coreunwind/coreunwind/container"
	"github.com/coreunwind/coreunwind/corefile"
)

// Crash reports that carry cores (package container): a systemd journal
// file is as many inputs as it has coredump entries, an apport .crash
// file or an ABRT problem directory one. Each core is extracted
// (bounded as a compressed core is) into the batch's temporary
// directory as it is discovered, and its input carries the crash
// report's facts (Input.Origin) into the report and the buckets. A
// minidump, which is not an ELF core, would come in here too with an
// input of its own kind (the seam: Input.Path names a file the analyzer
// opens; a minidump input would name its analyzer).

// container emits the crashes of the container at p, called name.
func (d *discoverer) container(name, p string) bool {
	crashes, err := container.List(p)
	if err != nil {
		return d.emit(&Input{Name: name, Err: err})
	}
	for _, c := range crashes {
		origin := c.Origin
		origin.Path = name
		in := &Input{Name: name + strings.TrimPrefix(c.Name, p), Time: c.Time, Origin: &origin,
			SearchDirs: []string{filepath.Dir(p)}}
		switch tempDir, err := d.tempDir(); {
		case c.Err != nil:
			in.Err = c.Err
		case err != nil:
			in.Err = fmt.Errorf("extracting: %w", err)
		default:
			path, remove, err := c.Core(tempDir)
			in.Path, in.Err = path, err
			if remove {
				in.remove = path
			}
		}
		if in.Time.IsZero() {
			in.Time = coreTime(name, fileTime(p))
		}
		if !d.emit(in) {
			return false
		}
	}
	return true
}

// containerMember copies a tar member that is a journal file or an
// apport .crash file to a temporary file and emits its crashes. The copy
// gets the member's modification time: a crash that records no time of
// its own is as old as its report, not as its extraction (which differs
// from run to run, and between a batch's workers).
func (d *discoverer) containerMember(name string, r io.Reader, mtime time.Time, tempDir string, tempErr error) bool {
	if tempErr != nil {
		return d.emit(&Input{Name: name, Err: fmt.Errorf("extracting: %w", tempErr)})
	}
	out, err := os.CreateTemp(tempDir, "container-*")
	if err != nil {
		return d.emit(&Input{Name: name, Err: fmt.Errorf("extracting: %w", err)})
	}
	defer os.Remove(out.Name())
	_, err = copyBounded(out, r)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chtimes(out.Name(), mtime, mtime)
	}
	if err != nil {
		return d.emit(&Input{Name: name, Err: fmt.Errorf("extracting: %w", err)})
	}
	return d.container(name, out.Name())
}

// copyBounded copies a container out of an archive, no more than a core
// may be (corefile.MaxCoreSize).
func copyBounded(w io.Writer, r io.Reader) (int64, error) {
	limit, err := corefile.MaxCoreSize()
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(w, io.LimitReader(r, limit+1))
	if err == nil && n > limit {
		err = fmt.Errorf("archive member larger than %d bytes (COREUNWIND_MAX_CORE_SIZE)", limit)
	}
	return n, err
}

// fileTime is the modification time of p, zero when unknown.
func fileTime(p string) (t time.Time) {
	if fi, err := os.Stat(p); err == nil {
		t = fi.ModTime()
	}
	return t
}

package elfx

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
)

// DefaultDebugDirs is where distributions install separate debug files.
var DefaultDebugDirs = []string{"/usr/lib/debug"}

// ErrNoDebugFile is returned (wrapped) by AttachDebugFile when no
// candidate file exists.
var ErrNoDebugFile = errors.New("no separate debug file found")

// AttachDebugFile finds and attaches the object's separate debug file,
// trying in turn, for each of debugDirs (DefaultDebugDirs when empty):
//
//   - <dir>/.build-id/xx/rest.debug for the object's build ID;
//
// and then, for the name in .gnu_debuglink:
//
//   - the binary's own directory,
//   - <binary's dir>/.debug/,
//   - <dir>/<binary's dir>/ for each debug dir.
//
// A debuglink candidate must match the CRC32 recorded in the binary, and
// any candidate must carry the same build ID when both files have one; a
// candidate failing either check is rejected with an error naming it, and
// the search goes on. The debug file then supplies .symtab, DWARF and
// .debug_frame; .eh_frame always comes from the binary. It returns the
// path attached. Attaching replaces any debug file attached before and
// discards tables already built, so it is best called right after Open.
func (o *Object) AttachDebugFile(debugDirs []string) (string, error) {
	if len(debugDirs) == 0 {
		debugDirs = DefaultDebugDirs
	}
	var rejected []error
	try := func(path string, check func(*Object) error) bool {
		if o.mapped != nil && sameFile(path, o.name) {
			return false
		}
		if _, err := os.Stat(path); err != nil {
			return false
		}
		if err := o.attachChecked(path, check); err != nil {
			rejected = append(rejected, err)
			return false
		}
		return true
	}
	noCheck := func(*Object) error { return nil }

	if id := o.buildID; len(id) > 2 {
		for _, dir := range debugDirs {
			path := filepath.Join(dir, ".build-id", id[:2], id[2:]+".debug")
			if try(path, noCheck) {
				return path, nil
			}
		}
	}
	if name, crc, ok := o.debugLink(); ok && o.mapped != nil {
		binDir := filepath.Dir(o.name)
		if abs, err := filepath.Abs(binDir); err == nil {
			binDir = abs
		}
		candidates := []string{
			filepath.Join(binDir, name),
			filepath.Join(binDir, ".debug", name),
		}
		for _, dir := range debugDirs {
			candidates = append(candidates, filepath.Join(dir, binDir, name))
		}
		checkCRC := func(dbg *Object) error {
			got := crc32.ChecksumIEEE(dbg.mapped)
			if got != crc {
				return fmt.Errorf("CRC32 %08x does not match the .gnu_debuglink CRC32 %08x", got, crc)
			}
			return nil
		}
		for _, path := range candidates {
			if try(path, checkCRC) {
				return path, nil
			}
		}
	}
	if len(rejected) > 0 {
		return "", fmt.Errorf("elfx: %s: %w: %w", o.name, ErrNoDebugFile, errors.Join(rejected...))
	}
	return "", fmt.Errorf("elfx: %s: %w (build ID %q, debug dirs %s)", o.name, ErrNoDebugFile, o.buildID, strings.Join(debugDirs, ":"))
}

// attachChecked opens the debug file at path and attaches it if it
// passes check and carries the object's build ID.
func (o *Object) attachChecked(path string, check func(*Object) error) error {
	dbg, err := Open(path)
	if err != nil {
		return err
	}
	err = check(dbg)
	if err == nil && o.buildID != "" && dbg.buildID != "" && dbg.buildID != o.buildID {
		err = fmt.Errorf("build ID %s does not match %s's %s", dbg.buildID, o.name, o.buildID)
	}
	if err != nil {
		dbg.Close()
		return fmt.Errorf("elfx: debug file %s rejected: %w", path, err)
	}
	o.setDebug(dbg, path)
	return nil
}

// DebugFetcher fetches an object's separate debug file by build ID from
// somewhere other than the local debug directories (a debuginfod
// server), returning its path.
type DebugFetcher func(buildID string) (string, error)

// wantsFetchedDebug reports whether a debug file is worth fetching for o,
// which has none attached: it has no DWARF of its own, and when only
// unwinding is asked, no .eh_frame either (the debug file may then have
// .debug_frame).
func (o *Object) wantsFetchedDebug(unwindOnly bool) bool {
	if o.buildID == "" || o.DebugFile() != "" || o.hasDWARF() {
		return false
	}
	return !unwindOnly || o.section(".eh_frame") == nil
}

// attachFetched fetches and attaches o's debug file.
func (o *Object) attachFetched(fetch DebugFetcher) error {
	path, err := fetch(o.buildID)
	if err != nil {
		return err
	}
	return o.attachChecked(path, func(*Object) error { return nil })
}

// DebugFile is the path of the attached separate debug file, or "".
func (o *Object) DebugFile() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.debugPath
}

// debugObject returns the attached debug file, or nil; a deferred one
// is looked for now.
func (o *Object) debugObject() *Object {
	o.attachDeferredDebugFile()
	return o.attachedDebug()
}

// attachedDebug returns the debug file attached so far, or nil.
func (o *Object) attachedDebug() *Object {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.debug
}

// deferDebugFile makes AttachDebugFile(debugDirs) wait until something
// needs the debug file: symbols, DWARF, or .debug_frame for an address
// .eh_frame does not cover. Unwinding alone mostly needs none: opening
// and parsing libc's debug file was a fifth of a small core's
// --unwind-only report.
func (o *Object) deferDebugFile(debugDirs []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.debug == nil {
		o.deferredDebug = append([]string{}, debugDirs...)
	}
}

// attachDeferredDebugFile attaches the debug file deferDebugFile left for
// later, once; a call while another attaches waits for it.
func (o *Object) attachDeferredDebugFile() {
	o.mu.Lock()
	dirs := o.deferredDebug
	o.mu.Unlock()
	if dirs != nil {
		o.deferredOnce.Do(func() { o.AttachDebugFile(dirs) })
	}
}

func (o *Object) setDebug(dbg *Object, path string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.debug != nil {
		// Lookups still running against the old state may read the old
		// debug file; it stays mapped until the object is closed.
		o.retired = append(o.retired, o.debug)
	}
	dbg.keepInflated.Store(o.keepInflated.Load())
	o.debug, o.debugPath = dbg, path
	o.deferredDebug = nil
	o.derived.Store(&derived{})
}

// debugLink parses .gnu_debuglink: a NUL-terminated file name padded to
// four bytes, then the CRC32 of the debug file in the object's byte order.
func (o *Object) debugLink() (name string, crc uint32, ok bool) {
	s := o.section(".gnu_debuglink")
	if s == nil {
		return "", 0, false
	}
	data, err := o.sectionData(s)
	if err != nil {
		return "", 0, false
	}
	n := bytes.IndexByte(data, 0)
	if n <= 0 {
		return "", 0, false
	}
	off := int(align4(uint64(n + 1)))
	if off+4 > len(data) {
		return "", 0, false
	}
	name = string(data[:n])
	if strings.ContainsRune(name, '/') {
		// The link is a base name; a path would let a hostile binary
		// point anywhere.
		name = filepath.Base(name)
	}
	return name, o.ef.ByteOrder.Uint32(data[off:]), true
}

// sameFile reports whether a and b name the same file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(fa, fb)
}

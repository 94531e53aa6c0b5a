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

// debugDirsOrDefault is the debug directories to search: dirs as given,
// DefaultDebugDirs when nil (an empty, non-nil list searches none: only
// the places beside the binary).
func debugDirsOrDefault(dirs []string) []string {
	if dirs == nil {
		return DefaultDebugDirs
	}
	return dirs
}

// ErrNoDebugFile is returned (wrapped) by AttachDebugFile when no
// candidate file exists.
var ErrNoDebugFile = errors.New("no separate debug file found")

// DebugFileError is what AttachDebugFile looked for and did not find:
// enough for a user to put the right file in the right place, or to
// fetch it by build ID.
type DebugFileError struct {
	Object    string   // the binary's path
	BuildID   string   // its build ID, "" when it has none
	DebugLink string   // the name in its .gnu_debuglink, "" when none
	Dirs      []string // the debug directories searched
	Rejected  []error  // files found that did not match (CRC, build ID)
}

func (e *DebugFileError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "elfx: %s: %v", e.Object, ErrNoDebugFile)
	if e.BuildID != "" {
		fmt.Fprintf(&b, " (build ID %s)", e.BuildID)
	}
	b.WriteString(": " + e.Looked())
	for _, r := range e.Rejected {
		b.WriteString("; " + r.Error())
	}
	return b.String()
}

// Looked says where the file was looked for: by build ID under
// .build-id/ of each debug directory, and by the .gnu_debuglink name
// beside the binary and in the debug directories.
func (e *DebugFileError) Looked() string {
	dirs := strings.Join(e.Dirs, ", ")
	var by []string
	if id := e.BuildID; len(id) > 2 && len(e.Dirs) > 0 {
		by = append(by, fmt.Sprintf(".build-id/%s/%s.debug under %s", id[:2], id[2:], dirs))
	}
	switch {
	case e.DebugLink != "" && len(e.Dirs) > 0:
		by = append(by, fmt.Sprintf(".gnu_debuglink %s beside the binary, in its .debug/, and in %s (by that name and under the binary's directory)", e.DebugLink, dirs))
	case e.DebugLink != "":
		by = append(by, fmt.Sprintf(".gnu_debuglink %s beside the binary and in its .debug/ (no debug directory searched)", e.DebugLink))
	}
	switch {
	case len(by) > 0:
		return "looked for " + strings.Join(by, " and for ")
	case len(e.Dirs) == 0:
		return "no debug directory searched, and no .gnu_debuglink to look beside the binary by"
	default:
		return "no build ID and no .gnu_debuglink to look for it by"
	}
}

// Is makes the error an ErrNoDebugFile.
func (e *DebugFileError) Is(target error) bool { return target == ErrNoDebugFile }

// AttachDebugFile finds and attaches the object's separate debug file,
// trying in turn, for each of debugDirs (DefaultDebugDirs when nil):
//
//   - <dir>/.build-id/xx/rest.debug for the object's build ID;
//
// and then, for the name in .gnu_debuglink, as gdb does:
//
//   - the binary's own directory,
//   - <binary's dir>/.debug/,
//   - <dir>/<binary's dir>/ for each debug dir;
//
// and last <dir>/ itself for each debug dir: a debug file put in a
// --debug-dir by its name.
//
// A debuglink candidate must match the CRC32 recorded in the binary, and
// any candidate must carry the same build ID when both files have one; a
// candidate failing either check is rejected with an error naming it, and
// the search goes on. The debug file then supplies .symtab, DWARF and
// .debug_frame; .eh_frame always comes from the binary. It returns the
// path attached; the error when none is found is a *DebugFileError,
// which MissingDebugFile returns later. Attaching replaces any debug file
// attached before and discards tables already built, so it is best
// called right after Open.
func (o *Object) AttachDebugFile(debugDirs []string) (string, error) {
	debugDirs = debugDirsOrDefault(debugDirs)
	o.mu.Lock()
	o.debugDirs = debugDirs
	o.mu.Unlock()
	missing := &DebugFileError{Object: o.name, BuildID: o.buildID, Dirs: debugDirs}
	try := func(path string, check func(*Object) error) bool {
		if o.mapped != nil && sameFile(path, o.name) {
			return false
		}
		if _, err := os.Stat(path); err != nil {
			return false
		}
		if err := o.attachChecked(path, check); err != nil {
			missing.Rejected = append(missing.Rejected, err)
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
		missing.DebugLink = name
		checkCRC := func(dbg *Object) error {
			got := crc32.ChecksumIEEE(dbg.mapped)
			if got != crc {
				return fmt.Errorf("CRC32 %08x does not match the .gnu_debuglink CRC32 %08x", got, crc)
			}
			return nil
		}
		for _, path := range debugLinkCandidates(o.name, name, debugDirs) {
			if try(path, checkCRC) {
				return path, nil
			}
		}
	}
	o.mu.Lock()
	o.debugMissing = missing
	o.mu.Unlock()
	return "", missing
}

// debugLinkCandidates lists where the debug file named name by the
// .gnu_debuglink of the binary at path may be, in the order tried.
func debugLinkCandidates(path, name string, debugDirs []string) []string {
	binDir := filepath.Dir(path)
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
	for _, dir := range debugDirs {
		candidates = append(candidates, filepath.Join(dir, name))
	}
	return candidates
}

// MissingDebugFile says why the object has no debug information: nil
// when it has DWARF of its own or an attached debug file, or when no
// debug file was looked for; else what the search missed. A debug file
// left for later (deferDebugFile) is looked for now.
func (o *Object) MissingDebugFile() *DebugFileError {
	if o.debugObject() != nil || o.hasDWARF() {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.debugMissing
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
	o.debug, o.debugPath, o.debugMissing = dbg, path, nil
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

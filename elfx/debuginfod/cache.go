package debuginfod

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/coreunwind/coreunwind/internal/regfile"
)

// The cache in libdebuginfod's layout (elfutils 0.188):
//
//	DIR/BUILDID/debuginfo             a separate debug file
//	DIR/BUILDID/executable            an executable or shared library
//	DIR/BUILDID/section-NAME          one section's raw bytes, NAME escaped
//	DIR/cache_clean_interval_s        seconds between cleanings; its mtime is the last one
//	DIR/max_unused_age_s              a file not read for this long is removed
//	DIR/cache_miss_s                  how long an empty (negative) entry stands
//	DIR/.coreunwind-partial/BUILDID.N files being written (coreunwind's own)
//
// BUILDID is lower-case hex. Files are written to a partial file and
// renamed into place, read-only (0400), with the server's Last-Modified
// time. An empty file records that no server had the file:
// it is not asked again for cache_miss_s seconds after the file's mtime.
const (
	cleanIntervalFile = "cache_clean_interval_s"
	maxUnusedAgeFile  = "max_unused_age_s"
	cacheMissFile     = "cache_miss_s"

	defaultCleanInterval = 86400  // one day
	defaultMaxUnusedAge  = 604800 // one week
	defaultCacheMiss     = 600    // ten minutes
)

// Kind is what is asked of a server for a build ID.
type Kind string

const (
	KindDebuginfo  Kind = "debuginfo"
	KindExecutable Kind = "executable"
	KindSection    Kind = "section"
)

// cache is one cache directory. A shared cache is libdebuginfod's; a
// private one is a temporary directory used when the shared one cannot
// be written, without negative entries or cleaning.
type cache struct {
	dir    string
	shared bool
}

// targetPath is where the cache keeps kind for id (section: the name).
func (c *cache) targetPath(id string, kind Kind, section string) string {
	name := string(kind)
	if kind == KindSection {
		name = "section-" + escapeName(section)
	}
	return filepath.Join(c.dir, id, name)
}

// escapeName makes a section name one path component, as libdebuginfod's
// path_escape does: "/" becomes "##" and "#" becomes "#_", so distinct
// names stay distinct.
func escapeName(s string) string {
	return strings.NewReplacer("#", "#_", "/", "##").Replace(s)
}

// errNegative: the cache records that no server had the file.
var errNegative = errors.New("no server has it (cached answer)")

// lookup checks the cache for path: found (non-empty file), a recent
// negative entry (errNegative), or nothing. A stale negative entry is
// removed, so the servers are asked again.
func (c *cache) lookup(path string, now time.Time) (bool, error) {
	st, err := os.Stat(path)
	if err != nil {
		return false, nil
	}
	if !st.Mode().IsRegular() {
		return false, fmt.Errorf("%s is not a regular file", path)
	}
	if st.Size() > 0 {
		// Reading counts as use for cleaning (max_unused_age_s goes by
		// atime); mapping the file may not update it under noatime.
		_ = os.Chtimes(path, now, st.ModTime())
		return true, nil
	}
	if !c.shared {
		return false, nil
	}
	miss := c.setting(cacheMissFile, defaultCacheMiss)
	if now.Sub(st.ModTime()) <= time.Duration(miss)*time.Second {
		return false, errNegative
	}
	os.Remove(path)
	return false, nil
}

// recordMiss writes the negative entry for path (never replacing a file
// another process put there).
func (c *cache) recordMiss(path string) {
	if !c.shared {
		return
	}
	if os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	if f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o666); err == nil {
		f.Close()
	}
}

// setting reads one of the cache's settings files: a decimal number of
// seconds. A missing or empty file is created with def, as libdebuginfod
// does; an unreadable number means def.
func (c *cache) setting(name string, def int64) int64 {
	v, _ := c.settingFile(name, def)
	return v
}

// settingFile is setting, with the file's modification time.
func (c *cache) settingFile(name string, def int64) (int64, time.Time) {
	path := filepath.Join(c.dir, name)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return def, time.Time{}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return def, time.Time{}
	}
	if st.Size() == 0 {
		f.WriteString(strconv.FormatInt(def, 10))
		return def, st.ModTime()
	}
	buf := make([]byte, 64)
	n, _ := io.ReadFull(f, buf)
	return parseSetting(string(buf[:n]), def), st.ModTime()
}

// parseSetting reads a settings file's text as scanf("%ld") does,
// falling back to def.
func parseSetting(s string, def int64) int64 {
	if v, ok := leadingInt(s); ok {
		return v
	}
	return def
}

// clean removes what has not been used for max_unused_age_s, when
// cache_clean_interval_s has passed since the last cleaning, as
// libdebuginfod does: files by their access time, then build-ID
// directories left empty (and not modified) for as long. Only entries of
// the cache's own layout are touched. libdebuginfod 0.188 leaves
// section-* files out (and so never removes their directories); they are
// cleaned here too.
func (c *cache) clean(now time.Time) {
	if !c.shared {
		return
	}
	interval, last := c.settingFile(cleanIntervalFile, defaultCleanInterval)
	if last.IsZero() || now.Sub(last) < time.Duration(interval)*time.Second {
		return
	}
	// Mark the cleaning first, so concurrent clients do not all start one.
	_ = os.Chtimes(filepath.Join(c.dir, cleanIntervalFile), now, now)
	maxAge := time.Duration(c.setting(maxUnusedAgeFile, defaultMaxUnusedAge)) * time.Second
	dirs, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	for _, d := range dirs {
		if !d.IsDir() || !isHex(d.Name()) {
			continue
		}
		sub := filepath.Join(c.dir, d.Name())
		// The directory's age is taken before its files go (removing
		// them makes it new), as libdebuginfod's fts walk does.
		dirSt, dirErr := os.Stat(sub)
		files, _ := os.ReadDir(sub)
		for _, f := range files {
			if !f.Type().IsRegular() || !cachedName(f.Name()) {
				continue
			}
			p := filepath.Join(sub, f.Name())
			if st, err := os.Stat(p); err == nil && now.Sub(atime(st)) >= maxAge {
				os.Remove(p)
			}
		}
		if dirErr == nil && now.Sub(dirSt.ModTime()) >= maxAge {
			os.Remove(sub) // fails unless empty
		}
	}
}

// cachedName reports whether a file name in a build-ID directory is one
// the cache layout defines (a download of libdebuginfod in progress,
// NAME.XXXXXX, is recent and so never old enough to be removed).
func cachedName(name string) bool {
	return name == string(KindDebuginfo) || name == string(KindExecutable) ||
		strings.HasPrefix(name, "source") || strings.HasPrefix(name, "section-")
}

// atime is the file's last access time.
func atime(st os.FileInfo) time.Time {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return time.Unix(s.Atim.Sec, s.Atim.Nsec)
	}
	return st.ModTime()
}

// validBuildID reports whether id is a build ID as servers take it:
// lower-case hex, an even number of digits, at most 64 bytes (what
// libdebuginfod accepts).
func validBuildID(id string) bool {
	return len(id) >= 2 && len(id)%2 == 0 && len(id) < 2*64 && isHex(id)
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// extractSection copies the raw bytes of section name of the ELF file at
// src (as the file holds them: compressed if the section is) to a new
// file dst, through a partial file and a rename. found is false when the
// file has no such section with contents.
func (c *cache) extractSection(src, name, dst string) (found bool, err error) {
	ef, err := regfile.OpenELF(src)
	if err != nil {
		return false, err
	}
	defer ef.Close()
	s := ef.Section(name)
	if s == nil || s.Type == elf.SHT_NOBITS {
		return false, nil
	}
	if err := c.writeAtomically(dst, io.NewSectionReader(s.ReaderAt, 0, int64(s.FileSize)), time.Time{}); err != nil {
		return false, err
	}
	return true, nil
}

// writeAtomically writes r to path through a partial file renamed into
// place read-only: concurrent readers (other processes included) see the
// whole file or none. A zero mtime leaves the time of writing.
func (c *cache) writeAtomically(path string, r io.Reader, mtime time.Time) error {
	tmp, err := c.createPartial(path)
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, r)
	return commitTemp(tmp, path, mtime, err)
}

// partialDir holds the files being written, DIR/.coreunwind-partial/ID.RANDOM,
// each renamed to its entry when complete. Lookups ask for entries by
// their names, so a partial file is never taken for one; the name is not
// a build ID, so libdebuginfod's cleaning (and clean) leave it alone;
// and one directory for all lets a run remove what dead runs left
// (removeStalePartials) with one listing.
const partialDir = ".coreunwind-partial"

// createPartial creates the partial file for target, locked (flock) for
// as long as it is open: a run killed midway (SIGTERM, OOM) loses its
// lock with its life, which is how a later run tells its leftovers from
// the downloads of a run still going, on this machine or another sharing
// the cache.
func (c *cache) createPartial(target string) (*os.File, error) {
	dir := filepath.Join(c.dir, partialDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(filepath.Dir(target))+".*")
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(tmp.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("lock %s: %w", tmp.Name(), err)
	}
	return tmp, nil
}

// removeStalePartials removes the partial files no live writer holds:
// left by runs that died midway, they would otherwise stay forever.
func (c *cache) removeStalePartials() {
	dir := filepath.Join(c.dir, partialDir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			os.Remove(p)
		}
		f.Close()
	}
}

// commitTemp finishes a partial file: read-only, dated, renamed to path,
// and only then closed (its lock held until it is no longer partial);
// removed instead when err is set or any step fails.
func commitTemp(tmp *os.File, path string, mtime time.Time, err error) error {
	if err == nil {
		err = tmp.Chmod(0o400)
	}
	if err == nil && !mtime.IsZero() {
		err = os.Chtimes(tmp.Name(), time.Now(), mtime)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	if cerr := tmp.Close(); err == nil && cerr != nil {
		// The data may not have reached the disk: the entry is not
		// trusted.
		os.Remove(path)
		err = cerr
	}
	return err
}

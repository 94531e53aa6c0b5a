package elfx

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Cache shares one Object per binary across a batch of cores, so each
// library is mapped, indexed and symbolized once. Objects are keyed by
// build ID, so two paths to one build (a sysroot copy and the installed
// file) share an object; files without a build ID are keyed by path,
// device, inode, size and modification time. A build ID alone does not identify a file: a
// separate debug file carries its binary's build ID but none of its code
// or .eh_frame, so the key is the build ID and the file size (a process
// may map both, as Rust's backtrace code maps libc's debug file). A Cache is safe for concurrent use. Objects it
// returns belong to it: close the Cache, not the objects.
type Cache struct {
	mu      sync.Mutex
	byFile  map[fileKey]*cacheEntry
	byBuild map[string]*Object
	objects []*Object
	// images are the objects of ELF images held in memory (cores' vDSOs),
	// by name and bytes (nimages of them): see ImageObject.
	images  map[string]map[string]*cacheEntry
	nimages int

	fetch      DebugFetcher // nil: local debug files only
	unwindOnly bool
	batch      bool
	symbols    *SymbolCache // nil: lookups are not kept on disk
}

// SetSymbolCache makes objects opened from now on keep their symbol and
// source lookups in sc (nil: nowhere); Close writes them back.
func (c *Cache) SetSymbolCache(sc *SymbolCache) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.symbols = sc
}

// SetBatch tells the cache that the objects opened from now on serve a
// batch of cores: their compressed DWARF stays inflated as far as any
// core needed it. A single report gives back the pages of .debug_info it
// passes on its way to the units it needs; in a batch the next core needs
// other units, and pages given back would be inflated again from the
// section's start.
func (c *Cache) SetBatch(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.batch = on
}

// SetUnwindOnly tells the cache that only unwinding is asked of the
// objects opened from now on: their separate debug files are looked for
// when something needs them, not at Open.
func (c *Cache) SetUnwindOnly(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unwindOnly = on
}

// SetDebugFetcher makes the cache fetch the separate debug file of an
// object opened later that has none locally and no DWARF of its own
// (with unwindOnly, only of one without .eh_frame). A failed fetch is
// returned by Open alongside the object, which stays usable.
func (c *Cache) SetDebugFetcher(fetch DebugFetcher, unwindOnly bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fetch, c.unwindOnly = fetch, unwindOnly
}

// fileKey identifies a file version without reading it: a file
// replaced under the same path (a rebuilt binary, a copy with the same
// size and time) is a new inode.
type fileKey struct {
	path string
	id   FileID
	dirs string // debug dirs the object was attached with, NUL-separated
}

// FileID identifies a version of a file by its metadata (device, inode,
// size, modification time in nanoseconds); see OpenID.
type FileID struct {
	Dev, Ino    uint64
	Size, Mtime int64
}

// cacheEntry is one Open in flight or done; concurrent callers for the
// same file wait on once instead of opening it twice.
type cacheEntry struct {
	once sync.Once
	obj  *Object
	err  error
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{byFile: map[fileKey]*cacheEntry{}, byBuild: map[string]*Object{}}
}

// Open returns the shared Object for path, opening it and attaching its
// separate debug file (searched in debugDirs, DefaultDebugDirs when nil)
// on first use. A missing debug file is not an error; one that the
// fetcher (SetDebugFetcher) failed to fetch is, returned with the usable
// object.
func (c *Cache) Open(path string, debugDirs []string) (*Object, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return nil, fmt.Errorf("elfx: %w", &os.PathError{Op: "stat", Path: path, Err: err})
	}
	return c.OpenID(path, FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: int64(st.Size), Mtime: st.Mtim.Nano()}, debugDirs)
}

// OpenID is Open for a caller that has just taken path's identity id
// (a core's module resolution did, for each file it accepted): a batch
// then looks each library up once per core, not twice.
func (c *Cache) OpenID(path string, id FileID, debugDirs []string) (*Object, error) {
	debugDirs = debugDirsOrDefault(debugDirs)
	key := fileKey{path: path, id: id, dirs: strings.Join(debugDirs, "\x00")}
	c.mu.Lock()
	if c.byFile == nil {
		c.byFile, c.byBuild = map[fileKey]*cacheEntry{}, map[string]*Object{}
	}
	e, ok := c.byFile[key]
	if !ok {
		e = &cacheEntry{}
		c.byFile[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.obj, e.err = c.open(path, debugDirs) })
	return e.obj, e.err
}

func (c *Cache) open(path string, debugDirs []string) (*Object, error) {
	o, err := Open(path)
	if err != nil {
		return nil, err
	}
	if id := buildKey(o, path); id != "" {
		c.mu.Lock()
		shared, ok := c.byBuild[id]
		c.mu.Unlock()
		if ok {
			o.Close()
			return shared, nil
		}
	}
	// A missing or rejected debug file leaves the object usable with the
	// symbols and tables it carries itself.
	var fetchErr error
	c.mu.Lock()
	unwindOnly, batch := c.unwindOnly, c.batch
	c.mu.Unlock()
	o.keepInflated.Store(batch)
	c.mu.Lock()
	o.fetch = c.fetch
	c.mu.Unlock()
	if unwindOnly && o.section(".eh_frame") != nil {
		// Unwinding reads .eh_frame; the debug file only if it misses.
		o.deferDebugFile(debugDirs)
	} else if _, err := o.AttachDebugFile(debugDirs); err != nil {
		c.mu.Lock()
		fetch, unwindOnly := c.fetch, c.unwindOnly
		c.mu.Unlock()
		if fetch != nil && o.wantsFetchedDebug(unwindOnly) {
			fetchErr = o.attachFetched(fetch)
		}
	}
	c.mu.Lock()
	sc := c.symbols
	c.mu.Unlock()
	o.attachSymbolCache(sc)
	if batch {
		o.keepLookups() // the symbol cache's memo, if attached, stays
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if id := buildKey(o, path); id != "" {
		if shared, ok := c.byBuild[id]; ok {
			// Another path to the same build won the race.
			o.Close()
			return shared, nil
		}
		c.byBuild[id] = o
	}
	c.objects = append(c.objects, o)
	return o, fetchErr
}

// maxImages bounds the in-memory images a Cache keeps: a batch's cores
// come from a few kernels, each with its vDSO.
const maxImages = 16

// ImageObject returns the Object of the ELF image img held in memory
// (a core's vDSO), named name: cores of one kernel carry the same vDSO,
// parsed once per batch, not once per core. img is the caller's again
// when ImageObject returns (an image kept is copied).
func (c *Cache) ImageObject(img []byte, name string) (*Object, error) {
	c.mu.Lock()
	e, ok := c.images[name][string(img)] // no copy made for the lookup
	if !ok && c.nimages < maxImages {
		if c.images == nil {
			c.images = map[string]map[string]*cacheEntry{}
		}
		if c.images[name] == nil {
			c.images[name] = map[string]*cacheEntry{}
		}
		e = &cacheEntry{}
		c.images[name][string(img)] = e
		c.nimages++
	}
	c.mu.Unlock()
	if e == nil {
		img = bytes.Clone(img)
		return NewObject(bytes.NewReader(img), int64(len(img)), name)
	}
	e.once.Do(func() {
		img := bytes.Clone(img)
		e.obj, e.err = NewObject(bytes.NewReader(img), int64(len(img)), name)
	})
	return e.obj, e.err
}

// Close closes every object the cache opened.
func (c *Cache) Close() error {
	c.FlushSymbolCache()
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, o := range c.objects {
		errs = append(errs, o.Close())
	}
	c.objects = nil
	c.byFile = map[fileKey]*cacheEntry{}
	c.byBuild = map[string]*Object{}
	c.images, c.nimages = nil, 0
	return errors.Join(errs...)
}

// FlushSymbolCache writes what the objects' lookups found to the symbol
// cache; Close does it too.
func (c *Cache) FlushSymbolCache() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, o := range c.objects {
		o.flushSymbolCache()
	}
}

// buildKey is the cache key of an object with a build ID ("" without).
func buildKey(o *Object, path string) string {
	id := o.BuildID()
	if id == "" {
		return ""
	}
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s:%d", id, fi.Size())
}

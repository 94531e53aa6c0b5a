package elfx

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/coreunwind/coreunwind/internal/regfile"
)

// SymbolCache keeps, on disk, what symbol and source lookups in an object
// found: one small file per object, keyed by its build ID and the
// identity of the files behind it. A second run on the same binaries
// reads a few kilobytes instead of building symbol tables and inflating
// DWARF. It is a cache and never an error: a directory that cannot be
// written, a file that is truncated, corrupt (CRC-32C over its contents)
// or of another format version is ignored, and the lookups are made
// again and the file rewritten.
//
// Files are written to a temporary name and renamed, so concurrent
// processes see either a whole old file or a whole new one; a writer
// merges what is on disk with what it found. After each write the
// directory is trimmed to its size bound, least recently used files
// first (reading a file bumps its modification time).
type SymbolCache struct {
	dir      string
	maxBytes int64
}

// NoCacheEnv is the environment variable that turns the symbol cache off
// when set to anything but "" or "0".
const NoCacheEnv = "COREUNWIND_NO_CACHE"

// DefaultSymbolCacheBytes bounds a cache directory's size.
const DefaultSymbolCacheBytes = 64 << 20

// symbolCacheVersion changes with the file format and with anything that
// changes what a lookup returns for the same files.
const symbolCacheVersion = 1

const (
	symbolCacheMagic  = "CUSYMTAB"
	symbolCacheHeader = 24 // magic, version, CRC-32C, payload length
	symbolCacheExt    = ".cus"
	symbolCacheTemp   = ".tmp-"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// DefaultSymbolCacheDir is $XDG_CACHE_HOME/coreunwind, else
// ~/.cache/coreunwind; "" when neither is known.
func DefaultSymbolCacheDir() string {
	if d := os.Getenv("XDG_CACHE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "coreunwind")
	}
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return filepath.Join(h, ".cache", "coreunwind")
	}
	return ""
}

// NewSymbolCache returns the cache in dir (DefaultSymbolCacheDir when
// ""), bounded to maxBytes (DefaultSymbolCacheBytes when <= 0). It
// returns nil, an absent cache, when NoCacheEnv is set or no directory
// is known. Nothing is created until the first write.
func NewSymbolCache(dir string, maxBytes int64) *SymbolCache {
	if v := os.Getenv(NoCacheEnv); v != "" && v != "0" {
		return nil
	}
	if dir == "" {
		dir = DefaultSymbolCacheDir()
	}
	if dir == "" {
		return nil
	}
	if maxBytes <= 0 {
		maxBytes = DefaultSymbolCacheBytes
	}
	return &SymbolCache{dir: dir, maxBytes: maxBytes}
}

// Dir is the cache directory.
func (c *SymbolCache) Dir() string { return c.dir }

// lookupMemo is what lookups in one object found: loaded from the cache
// file, extended by new lookups, written back by flush.
type lookupMemo struct {
	cache *SymbolCache
	key   string // the identity of the files; stored in the file too
	file  string

	mu     sync.RWMutex
	syms   map[uint64]symResult
	frames map[uint64][]SourceFrame
	dirty  bool
}

// symResult is one Symbol lookup's result.
type symResult struct {
	sym Symbol
	ok  bool
}

// attachSymbolCache gives o a memo backed by c's file for o (nothing
// when c is nil or o is not a mapped file). Call it after
// AttachDebugFile: the debug file is part of the key, and attaching
// another one starts a fresh memo.
func (o *Object) attachSymbolCache(c *SymbolCache) {
	if c == nil || o.mapped == nil {
		return
	}
	key, ok := o.lookupKey()
	if !ok {
		return
	}
	sum := sha256.Sum256([]byte(key))
	m := &lookupMemo{cache: c, key: key, file: filepath.Join(c.dir, hex.EncodeToString(sum[:16])+symbolCacheExt),
		syms: map[uint64]symResult{}, frames: map[uint64][]SourceFrame{}}
	if k, syms, frames, err := c.read(m.file, true); err == nil && k == key {
		m.syms, m.frames = syms, frames
	}
	o.state().memo.Store(m)
}

// lookupKey names the files behind o's lookups: coreunwind itself (a
// new build may name things differently), the object and its debug file,
// each by path, size, modification time and inode, and the build ID.
func (o *Object) lookupKey() (string, bool) {
	self, ok := selfIdentity()
	if !ok {
		return "", false
	}
	id, ok := fileIdentity(o.name)
	if !ok {
		return "", false
	}
	dbg := ""
	o.mu.Lock()
	debugPath := o.debugPath
	o.mu.Unlock()
	if debugPath != "" {
		if dbg, ok = fileIdentity(debugPath); !ok {
			return "", false
		}
	}
	return strings.Join([]string{fmt.Sprint(symbolCacheVersion), self, o.buildID, id, dbg}, "\x00"), true
}

var selfOnce = sync.OnceValues(func() (string, bool) {
	exe, err := os.Executable()
	if err != nil {
		return "", false
	}
	return fileIdentity(exe)
})

// selfIdentity is the identity of the running coreunwind binary.
func selfIdentity() (string, bool) { return selfOnce() }

func fileIdentity(path string) (string, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%s\x01%d\x01%d\x01%d", abs, fi.Size(), fi.ModTime().UnixNano(), inode(fi)), true
}

func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}

func (m *lookupMemo) symbol(addr uint64) (symResult, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	r, ok := m.syms[addr]
	return r, ok
}

func (m *lookupMemo) sourceFrames(addr uint64) ([]SourceFrame, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	f, ok := m.frames[addr]
	return f, ok
}

func (m *lookupMemo) addSymbol(addr uint64, r symResult) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.syms[addr]; !ok {
		m.syms[addr], m.dirty = r, true
	}
}

func (m *lookupMemo) addSourceFrames(addr uint64, f []SourceFrame) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.frames[addr]; !ok {
		m.frames[addr], m.dirty = f, true
	}
}

// covers reports whether every address has both lookups memoized.
func (m *lookupMemo) covers(addrs []uint64) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for _, a := range addrs {
		if _, ok := m.syms[a]; !ok {
			return false
		}
		if _, ok := m.frames[a]; !ok {
			return false
		}
	}
	return true
}

// flushSymbolCache writes o's new lookups back, merged with what another
// process may have written meanwhile. Errors are dropped: the cache is
// an optimization.
func (o *Object) flushSymbolCache() {
	m := o.state().memo.Load()
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.dirty {
		return
	}
	if k, syms, frames, err := m.cache.read(m.file, false); err == nil && k == m.key {
		for a, r := range syms {
			if _, ok := m.syms[a]; !ok {
				m.syms[a] = r
			}
		}
		for a, f := range frames {
			if _, ok := m.frames[a]; !ok {
				m.frames[a] = f
			}
		}
	}
	if err := m.cache.write(m.file, encodeLookups(m.key, m.syms, m.frames)); err == nil {
		m.dirty = false
		m.cache.trim()
	}
}

// read decodes the cache file at path. The directory is shared with
// whoever can write to it, so the file is read only if it is a regular
// file (a FIFO would block, /dev/zero never ends), not a symbolic link
// (to someone's file), and within the cache's bound (a sparse file may
// claim gigabytes): no file trim keeps is larger. touch bumps its
// modification time, through the descriptor, for trim's least recently
// used order.
func (c *SymbolCache) read(path string, touch bool) (string, map[uint64]symResult, map[uint64][]SourceFrame, error) {
	f, err := regfile.OpenNoFollow(path)
	if err != nil {
		return "", nil, nil, err
	}
	defer f.Close()
	b, err := regfile.ReadAll(f, c.maxBytes)
	if err != nil {
		return "", nil, nil, err
	}
	key, syms, frames, err := decodeLookups(b)
	if err == nil && touch {
		now := unix.NsecToTimeval(time.Now().UnixNano())
		_ = unix.Futimes(int(f.Fd()), []unix.Timeval{now, now})
	}
	return key, syms, frames, err
}

// write stores b as file, atomically.
func (c *SymbolCache) write(file string, b []byte) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.dir, symbolCacheTemp+"*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// staleTemp is how old a temporary file must be before trim takes it for
// the leftover of a process that died while writing.
const staleTemp = time.Hour

// Names trim may remove: the directory may be shared with other files
// (--cache-dir is anyone's choice), so trim touches only names that
// attachSymbolCache and write make, holding what encodeLookups writes.
var (
	symbolCacheName     = regexp.MustCompile(`^[0-9a-f]{32}` + regexp.QuoteMeta(symbolCacheExt) + `$`)
	symbolCacheTempName = regexp.MustCompile(`^` + regexp.QuoteMeta(symbolCacheTemp) + `[0-9]+$`) // os.CreateTemp's
)

// ours reports whether the regular file at path begins as encodeLookups's
// output does; partial accepts less than the magic (a temporary file
// whose writer died early). A symbolic link is not ours.
func ours(path string, partial bool) bool {
	f, err := regfile.OpenNoFollow(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(symbolCacheMagic))
	n, _ := io.ReadFull(f, head)
	return bytes.HasPrefix([]byte(symbolCacheMagic), head[:n]) && (partial || n == len(head))
}

// trim removes the least recently used files until the directory holds
// at most three quarters of its bound, once it exceeds the bound. Only
// coreunwind's own files go (see ours).
func (c *SymbolCache) trim() {
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type file struct {
		path  string
		size  int64
		mtime time.Time
	}
	var files []file
	var total int64
	for _, e := range ents {
		name := e.Name()
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		path := filepath.Join(c.dir, name)
		switch {
		case symbolCacheTempName.MatchString(name):
			if time.Since(fi.ModTime()) > staleTemp && ours(path, true) {
				os.Remove(path)
			}
		case symbolCacheName.MatchString(name):
			files = append(files, file{path, fi.Size(), fi.ModTime()})
			total += fi.Size()
		}
	}
	if total <= c.maxBytes {
		return
	}
	slices.SortFunc(files, func(a, b file) int { return a.mtime.Compare(b.mtime) })
	for _, f := range files {
		if total <= c.maxBytes*3/4 {
			break
		}
		if ours(f.path, false) && os.Remove(f.path) == nil {
			total -= f.size
		}
	}
}

// encodeLookups is the file format: a header (magic, version, CRC-32C of
// the payload, payload length), then the key, the symbol lookups and the
// source lookups in address order, integers as uvarints, strings
// length-prefixed.
func encodeLookups(key string, syms map[uint64]symResult, frames map[uint64][]SourceFrame) []byte {
	p := appendString(nil, key)
	addrs := slices.Sorted(mapKeys(syms))
	p = binary.AppendUvarint(p, uint64(len(addrs)))
	for _, a := range addrs {
		r := syms[a]
		p = binary.AppendUvarint(p, a)
		if !r.ok {
			p = append(p, 0)
			continue
		}
		p = append(p, 1)
		p = appendString(p, r.sym.Name)
		p = appendString(p, r.sym.Raw)
		p = binary.AppendUvarint(p, r.sym.Addr)
		p = binary.AppendUvarint(p, r.sym.Size)
	}
	addrs = slices.Sorted(mapKeys(frames))
	p = binary.AppendUvarint(p, uint64(len(addrs)))
	for _, a := range addrs {
		fs := frames[a]
		p = binary.AppendUvarint(p, a)
		p = binary.AppendUvarint(p, uint64(len(fs)))
		for _, f := range fs {
			p = appendString(p, f.Function)
			p = appendString(p, f.File)
			p = binary.AppendUvarint(p, uint64(f.Line))
			p = binary.AppendUvarint(p, uint64(f.Column))
			if f.Inlined {
				p = append(p, 1)
			} else {
				p = append(p, 0)
			}
		}
	}
	h := make([]byte, symbolCacheHeader, symbolCacheHeader+len(p))
	copy(h, symbolCacheMagic)
	binary.LittleEndian.PutUint32(h[8:], symbolCacheVersion)
	binary.LittleEndian.PutUint32(h[12:], crc32.Checksum(p, castagnoli))
	binary.LittleEndian.PutUint64(h[16:], uint64(len(p)))
	return append(h, p...)
}

func mapKeys[V any](m map[uint64]V) func(func(uint64) bool) {
	return func(yield func(uint64) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func appendString(p []byte, s string) []byte {
	return append(binary.AppendUvarint(p, uint64(len(s))), s...)
}

var errCacheFile = errors.New("elfx: symbol cache file is truncated, corrupt or of another version")

// decodeLookups parses a file written by encodeLookups. Any damage is
// an error; counts are checked against the bytes left before anything
// is allocated.
func decodeLookups(b []byte) (key string, syms map[uint64]symResult, frames map[uint64][]SourceFrame, err error) {
	if len(b) < symbolCacheHeader || !bytes.Equal(b[:8], []byte(symbolCacheMagic)) ||
		binary.LittleEndian.Uint32(b[8:]) != symbolCacheVersion ||
		binary.LittleEndian.Uint64(b[16:]) != uint64(len(b)-symbolCacheHeader) {
		return "", nil, nil, errCacheFile
	}
	p := b[symbolCacheHeader:]
	if crc32.Checksum(p, castagnoli) != binary.LittleEndian.Uint32(b[12:]) {
		return "", nil, nil, errCacheFile
	}
	return decodePayload(p)
}

// decodePayload parses what follows the header.
func decodePayload(p []byte) (key string, syms map[uint64]symResult, frames map[uint64][]SourceFrame, err error) {
	d := cacheDecoder{p: p}
	key = d.str()
	n := d.count(2)
	syms = make(map[uint64]symResult, n)
	for range n {
		a := d.uvarint()
		var r symResult
		if d.byte() == 1 {
			r.ok = true
			r.sym.Name, r.sym.Raw = d.str(), d.str()
			r.sym.Addr, r.sym.Size = d.uvarint(), d.uvarint()
		}
		syms[a] = r
	}
	n = d.count(2)
	frames = make(map[uint64][]SourceFrame, n)
	for range n {
		a := d.uvarint()
		k := d.count(5)
		fs := make([]SourceFrame, 0, k)
		for range k {
			f := SourceFrame{Function: d.str(), File: d.str()}
			f.Line, f.Column = int(d.uvarint()), int(d.uvarint())
			f.Inlined = d.byte() == 1
			fs = append(fs, f)
		}
		frames[a] = fs
	}
	if d.bad || len(d.p) != 0 {
		return "", nil, nil, errCacheFile
	}
	return key, syms, frames, nil
}

// cacheDecoder reads a payload; past its end every read gives zero and
// sets bad.
type cacheDecoder struct {
	p   []byte
	bad bool
}

func (d *cacheDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.p)
	if n <= 0 {
		d.bad, d.p = true, nil
		return 0
	}
	d.p = d.p[n:]
	return v
}

func (d *cacheDecoder) byte() byte {
	if len(d.p) == 0 {
		d.bad = true
		return 0
	}
	c := d.p[0]
	d.p = d.p[1:]
	return c
}

func (d *cacheDecoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.p)) {
		d.bad, d.p = true, nil
		return ""
	}
	s := string(d.p[:n])
	d.p = d.p[n:]
	return s
}

// count reads a count of items of at least min bytes each, bounded by
// the bytes left.
func (d *cacheDecoder) count(least int) int {
	n := d.uvarint()
	if n > uint64(len(d.p)/least) {
		d.bad, d.p = true, nil
		return 0
	}
	return int(n)
}

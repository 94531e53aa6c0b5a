package elfx

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"path/filepath"
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
const symbolCacheVersion = 2 // 2: names, function entries, call sites and tail calls

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

	mu    sync.RWMutex
	l     lookups
	dirty bool
}

// lookups are the results the cache keeps, by query: Symbol and
// SourceFrames by address, LookupSymbol by name, and what tail-call
// frames are rebuilt from (FunctionEntry, CallSiteAt, TailCalls), which
// would otherwise read the DWARF on every run.
type lookups struct {
	syms    map[uint64]symResult
	frames  map[uint64][]SourceFrame
	named   map[string]symResult
	entries map[uint64]entryResult
	calls   map[uint64]callSiteResult
	tails   map[uint64]tailCallsResult
}

func newLookups() lookups {
	return lookups{syms: map[uint64]symResult{}, frames: map[uint64][]SourceFrame{}, named: map[string]symResult{},
		entries: map[uint64]entryResult{}, calls: map[uint64]callSiteResult{}, tails: map[uint64]tailCallsResult{}}
}

// symResult is one Symbol (or LookupSymbol) lookup's result.
type symResult struct {
	sym Symbol
	ok  bool
}

// entryResult is one FunctionEntry result.
type entryResult struct {
	entry uint64
	ok    bool
}

// callSiteResult is one CallSiteAt result.
type callSiteResult struct {
	site CallSite
	ok   bool
}

// tailCallsResult is one TailCalls result.
type tailCallsResult struct {
	sites []CallSite
	found bool
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
	m := &lookupMemo{cache: c, key: key, file: filepath.Join(c.dir, hex.EncodeToString(sum[:16])+symbolCacheExt), l: newLookups()}
	if k, l, err := c.read(m.file, true); err == nil && k == key {
		m.l = l
	}
	o.state().memo.Store(m)
}

// keepLookups returns o's memo, giving it one held in memory only when
// no symbol cache file backs one: the cores of a batch stop at the same
// few places of the same programs, and each address is then symbolized
// once for all of them, not once a core.
func (o *Object) keepLookups() *lookupMemo {
	d := o.state()
	if m := d.memo.Load(); m != nil {
		return m
	}
	d.memo.CompareAndSwap(nil, &lookupMemo{l: newLookups()})
	return d.memo.Load()
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

// memoLoad returns what the memo holds for k in one of its maps (m.l's;
// the maps are filled, never replaced, once the memo is attached).
func memoLoad[K comparable, V any](m *lookupMemo, by map[K]V, k K) (V, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	v, ok := by[k]
	return v, ok
}

// maxKeptLookups bounds each map of a memo held in memory only
// (keepLookups): a batch of endless distinct cores (hostile, or a
// long-running runner's) must not grow it without end. Past it, lookups
// are computed again, as without a memo.
const maxKeptLookups = 1 << 16

// memoStore adds v for k to one of the memo's maps.
func memoStore[K comparable, V any](m *lookupMemo, by map[K]V, k K, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cache == nil && len(by) >= maxKeptLookups {
		return
	}
	if _, ok := by[k]; !ok {
		by[k], m.dirty = v, true
	}
}

// covers reports whether every address has both lookups memoized.
func (m *lookupMemo) covers(addrs []uint64) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for _, a := range addrs {
		if _, ok := m.l.syms[a]; !ok {
			return false
		}
		if _, ok := m.l.frames[a]; !ok {
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
	if m == nil || m.cache == nil {
		return // no memo, or one in memory only (keepLookups)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.dirty {
		return
	}
	if k, l, err := m.cache.read(m.file, false); err == nil && k == m.key {
		m.l.merge(l)
	}
	if err := m.cache.write(m.file, encodeLookups(m.key, m.l)); err == nil {
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
func (c *SymbolCache) read(path string, touch bool) (string, lookups, error) {
	f, err := regfile.OpenNoFollow(path)
	if err != nil {
		return "", lookups{}, err
	}
	defer f.Close()
	b, err := regfile.ReadAll(f, c.maxBytes)
	if err != nil {
		return "", lookups{}, err
	}
	key, l, err := decodeLookups(b)
	if err == nil && touch {
		now := unix.NsecToTimeval(time.Now().UnixNano())
		_ = unix.Futimes(int(f.Fd()), []unix.Timeval{now, now})
	}
	return key, l, err
}

// merge adds what o holds and l does not.
func (l lookups) merge(o lookups) {
	mergeInto(l.syms, o.syms)
	mergeInto(l.frames, o.frames)
	mergeInto(l.named, o.named)
	mergeInto(l.entries, o.entries)
	mergeInto(l.calls, o.calls)
	mergeInto(l.tails, o.tails)
}

func mergeInto[K comparable, V any](dst, src map[K]V) {
	for k, v := range src {
		if _, ok := dst[k]; !ok {
			dst[k] = v
		}
	}
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
// Plain string tests rather than regexps: a package-level regexp is
// compiled by every process at start, and most never trim.

// isSymbolCacheName reports whether name is a cache file's: 32 lowercase
// hex digits, then symbolCacheExt.
func isSymbolCacheName(name string) bool {
	key, ok := strings.CutSuffix(name, symbolCacheExt)
	return ok && len(key) == 32 && strings.Trim(key, "0123456789abcdef") == ""
}

// isSymbolCacheTempName reports whether name is one of write's temporary
// files: symbolCacheTemp, then the digits os.CreateTemp adds.
func isSymbolCacheTempName(name string) bool {
	digits, ok := strings.CutPrefix(name, symbolCacheTemp)
	return ok && digits != "" && strings.Trim(digits, "0123456789") == ""
}

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
		case isSymbolCacheTempName(name):
			if time.Since(fi.ModTime()) > staleTemp && ours(path, true) {
				os.Remove(path)
			}
		case isSymbolCacheName(name):
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
// the payload, payload length), then the key and each kind of lookup
// (lookups' fields in order) sorted by query, integers as uvarints,
// strings length-prefixed, flags as one byte.
func encodeLookups(key string, l lookups) []byte {
	e := &cacheEncoder{p: appendString(nil, key)}
	encodeSorted(e, l.syms, e.uvarint, e.symbol)
	encodeSorted(e, l.frames, e.uvarint, func(fs []SourceFrame) {
		e.uvarint(uint64(len(fs)))
		for _, f := range fs {
			e.str(f.Function)
			e.str(f.File)
			e.uvarint(uint64(f.Line))
			e.uvarint(uint64(f.Column))
			e.flag(f.Inlined)
		}
	})
	encodeSorted(e, l.named, e.str, e.symbol)
	encodeSorted(e, l.entries, e.uvarint, func(r entryResult) {
		e.flag(r.ok)
		e.uvarint(r.entry)
	})
	encodeSorted(e, l.calls, e.uvarint, func(r callSiteResult) {
		e.flag(r.ok)
		e.callSite(r.site)
	})
	encodeSorted(e, l.tails, e.uvarint, func(r tailCallsResult) {
		e.flag(r.found)
		e.uvarint(uint64(len(r.sites)))
		for _, c := range r.sites {
			e.callSite(c)
		}
	})
	p := e.p
	h := make([]byte, symbolCacheHeader, symbolCacheHeader+len(p))
	copy(h, symbolCacheMagic)
	binary.LittleEndian.PutUint32(h[8:], symbolCacheVersion)
	binary.LittleEndian.PutUint32(h[12:], crc32.Checksum(p, castagnoli))
	binary.LittleEndian.PutUint64(h[16:], uint64(len(p)))
	return append(h, p...)
}

// encodeSorted appends one kind of lookup: how many, then each query
// (in order, so that equal lookups make equal files) and its answer.
func encodeSorted[K cmp.Ordered, V any](e *cacheEncoder, m map[K]V, query func(K), answer func(V)) {
	e.uvarint(uint64(len(m)))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		query(k)
		answer(m[k])
	}
}

// cacheEncoder appends a payload's items.
type cacheEncoder struct{ p []byte }

func (e *cacheEncoder) uvarint(v uint64) { e.p = binary.AppendUvarint(e.p, v) }
func (e *cacheEncoder) str(s string)     { e.p = appendString(e.p, s) }

func (e *cacheEncoder) flag(b bool) {
	if b {
		e.p = append(e.p, 1)
	} else {
		e.p = append(e.p, 0)
	}
}

func (e *cacheEncoder) symbol(r symResult) {
	e.flag(r.ok)
	if r.ok {
		e.str(r.sym.Name)
		e.str(r.sym.Raw)
		e.uvarint(r.sym.Addr)
		e.uvarint(r.sym.Size)
	}
}

func (e *cacheEncoder) callSite(c CallSite) {
	e.uvarint(c.ReturnPC)
	e.flag(c.Tail)
	e.flag(c.HasTargetAddr)
	e.uvarint(c.TargetAddr)
	e.str(c.TargetName)
}

func appendString(p []byte, s string) []byte {
	return append(binary.AppendUvarint(p, uint64(len(s))), s...)
}

var errCacheFile = errors.New("elfx: symbol cache file is truncated, corrupt or of another version")

// decodeLookups parses a file written by encodeLookups. Any damage is
// an error; counts are checked against the bytes left before anything
// is allocated.
func decodeLookups(b []byte) (key string, l lookups, err error) {
	if len(b) < symbolCacheHeader || !bytes.Equal(b[:8], []byte(symbolCacheMagic)) ||
		binary.LittleEndian.Uint32(b[8:]) != symbolCacheVersion ||
		binary.LittleEndian.Uint64(b[16:]) != uint64(len(b)-symbolCacheHeader) {
		return "", lookups{}, errCacheFile
	}
	p := b[symbolCacheHeader:]
	if crc32.Checksum(p, castagnoli) != binary.LittleEndian.Uint32(b[12:]) {
		return "", lookups{}, errCacheFile
	}
	return decodePayload(p)
}

// decodePayload parses what follows the header.
func decodePayload(p []byte) (key string, l lookups, err error) {
	d := cacheDecoder{p: p}
	key = d.str()
	l = newLookups()
	for range d.count(2) {
		a := d.uvarint()
		l.syms[a] = d.symbol()
	}
	for range d.count(2) {
		a := d.uvarint()
		k := d.count(5)
		fs := make([]SourceFrame, 0, k)
		for range k {
			f := SourceFrame{Function: d.str(), File: d.str()}
			f.Line, f.Column = int(d.uvarint()), int(d.uvarint())
			f.Inlined = d.flag()
			fs = append(fs, f)
		}
		l.frames[a] = fs
	}
	for range d.count(2) {
		n := d.str()
		l.named[n] = d.symbol()
	}
	for range d.count(3) {
		a := d.uvarint()
		ok := d.flag()
		l.entries[a] = entryResult{entry: d.uvarint(), ok: ok}
	}
	for range d.count(7) {
		a := d.uvarint()
		ok := d.flag()
		l.calls[a] = callSiteResult{site: d.callSite(), ok: ok}
	}
	for range d.count(3) {
		a := d.uvarint()
		r := tailCallsResult{found: d.flag()}
		k := d.count(5)
		if k > 0 {
			r.sites = make([]CallSite, 0, k)
		}
		for range k {
			r.sites = append(r.sites, d.callSite())
		}
		l.tails[a] = r
	}
	if d.bad || len(d.p) != 0 {
		return "", lookups{}, errCacheFile
	}
	return key, l, nil
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

// flag reads one byte: 1 is true, 0 false, anything else damage.
func (d *cacheDecoder) flag() bool {
	if len(d.p) == 0 || d.p[0] > 1 {
		d.bad, d.p = true, nil
		return false
	}
	c := d.p[0]
	d.p = d.p[1:]
	return c == 1
}

func (d *cacheDecoder) symbol() symResult {
	var r symResult
	if r.ok = d.flag(); r.ok {
		r.sym.Name, r.sym.Raw = d.str(), d.str()
		r.sym.Addr, r.sym.Size = d.uvarint(), d.uvarint()
	}
	return r
}

func (d *cacheDecoder) callSite() CallSite {
	c := CallSite{ReturnPC: d.uvarint(), Tail: d.flag(), HasTargetAddr: d.flag()}
	c.TargetAddr, c.TargetName = d.uvarint(), d.str()
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

package elfx

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// lookupResult is what Symbol and SourceFrames give for one address.
type lookupResult struct {
	Sym    Symbol
	OK     bool
	Frames []SourceFrame
}

func lookupAll(t testing.TB, o *Object, addrs []uint64) []lookupResult {
	t.Helper()
	out := make([]lookupResult, len(addrs))
	for i, a := range addrs {
		out[i].Sym, out[i].OK = o.Symbol(a)
		f, err := o.SourceFrames(a)
		if err != nil {
			t.Fatalf("SourceFrames(%#x): %v", a, err)
		}
		if len(f) > 0 { // a cached empty result is [], a computed one may be nil
			out[i].Frames = f
		}
	}
	return out
}

// tailCallResult is what the lookups tail-call frames are rebuilt from
// give for one address (taken as a pc and as a return address) and the
// name of its symbol.
type tailCallResult struct {
	Entry      uint64
	EntryOK    bool
	Site       CallSite
	SiteOK     bool
	Tails      []CallSite
	TailsFound bool
	Named      Symbol
	NamedOK    bool
}

func tailCallLookups(t testing.TB, o *Object, addrs []uint64) []tailCallResult {
	t.Helper()
	out := make([]tailCallResult, len(addrs))
	for i, a := range addrs {
		r := &out[i]
		var err error
		r.Entry, r.EntryOK = o.FunctionEntry(a)
		if r.Site, r.SiteOK, err = o.CallSiteAt(a); err != nil {
			t.Fatalf("CallSiteAt(%#x): %v", a, err)
		}
		if r.Tails, r.TailsFound, err = o.TailCalls(r.Entry); err != nil {
			t.Fatalf("TailCalls(%#x): %v", r.Entry, err)
		}
		if len(r.Tails) == 0 {
			r.Tails = nil
		}
		if s, ok := o.Symbol(a); ok {
			r.Named, r.NamedOK = o.LookupSymbol(s.Raw)
		}
	}
	return out
}

// libcLookups opens libc (with its debug file) through a Cache using the
// symbol cache in dir and looks addrs up; it returns the results and the
// object (closed with the Cache at the end of the test).
func libcLookups(t *testing.T, sc *SymbolCache, addrs []uint64) ([]lookupResult, *Object, *Cache) {
	t.Helper()
	c := NewCache()
	c.SetSymbolCache(sc)
	o, err := c.Open(libcWithDebug(t).Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return lookupAll(t, o, addrs), o, c
}

// libcSample is a few hundred addresses of libc's functions with the
// results an object without a symbol cache gives for them.
func libcSample(t *testing.T) ([]uint64, []lookupResult) {
	t.Helper()
	o := libcWithDebug(t)
	addrs := sampleAddrs(t, mustOpen(t, o.DebugFile()).ELF(), 60)
	return addrs, lookupAll(t, o, addrs)
}

// built reports whether the object built its symbol table or DWARF index.
func built(o *Object) bool {
	d := o.state()
	return d.syms != nil || d.dwarf != nil
}

func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*"+symbolCacheExt))
	return files
}

// TestSymbolCacheReuse: a second run on the same libc answers every
// lookup from the cache file, without building the symbol table or the
// DWARF index, and gives what the uncached lookups give: those of
// symbols and source lines and those tail-call frames are rebuilt from
// (function entries, call sites, tail calls, symbols by name).
func TestSymbolCacheReuse(t *testing.T) {
	addrs, want := libcSample(t)
	wantTails := tailCallLookups(t, libcWithDebug(t), addrs)
	dir := t.TempDir()
	sc := NewSymbolCache(dir, 0)
	got, o, c := libcLookups(t, sc, addrs)
	if !reflect.DeepEqual(got, want) {
		t.Fatal("first run through the cache differs from uncached lookups")
	}
	if !reflect.DeepEqual(tailCallLookups(t, o, addrs), wantTails) {
		t.Fatal("first run's tail-call lookups through the cache differ from uncached ones")
	}
	tails := 0
	for _, r := range wantTails {
		if r.SiteOK || len(r.Tails) > 0 {
			tails++
		}
	}
	if tails == 0 {
		t.Fatal("no call site among the addresses: the test proves nothing")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(cacheFiles(t, dir)); n != 1 {
		t.Fatalf("%d cache files after one object, want 1", n)
	}

	c2 := NewCache()
	c2.SetSymbolCache(sc)
	defer c2.Close()
	o2, err := c2.Open(libcWithDebug(t).Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	o2.WarmFor(addrs)
	if built(o2) {
		t.Error("WarmFor built tables although the cache holds every address")
	}
	if got := lookupAll(t, o2, addrs); !reflect.DeepEqual(got, want) {
		t.Error("second run from the cache differs from uncached lookups")
	}
	if got := tailCallLookups(t, o2, addrs); !reflect.DeepEqual(got, wantTails) {
		t.Error("second run's tail-call lookups from the cache differ from uncached ones")
	}
	if built(o2) {
		t.Error("lookups built tables although the cache holds every address")
	}
	// An address the cache does not hold is looked up for real.
	o2.WarmFor(append(addrs, addrs[0]+1))
	if !built(o2) {
		t.Error("WarmFor with an address the cache lacks built nothing")
	}
}

// TestSymbolCacheDamage: truncated, corrupted or foreign cache files are
// detected (length, version, CRC-32C) and never give a wrong name; the
// lookups are made again and the file is rewritten whole.
func TestSymbolCacheDamage(t *testing.T) {
	addrs, want := libcSample(t)
	dir := t.TempDir()
	sc := NewSymbolCache(dir, 0)
	_, _, c := libcLookups(t, sc, addrs)
	c.Close()
	files := cacheFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("cache files %v", files)
	}
	good, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	// Where a function name lies in the file: flipping it without the
	// checksum would rename the function.
	name := want[len(want)/2].Sym.Name
	at := strings.Index(string(good), name)
	if at < 0 {
		t.Fatalf("%q not in the cache file", name)
	}
	damages := map[string][]byte{
		"renamed function": flip(good, at),
		"flipped checksum": flip(good, 12),
		"half":             good[:len(good)/2],
		"header only":      good[:symbolCacheHeader],
		"ten bytes":        good[:10],
		"empty":            {},
		"other version":    flip(good, 8),
		"trailing bytes":   append(append([]byte(nil), good...), 0),
	}
	for what, bad := range damages {
		t.Run(what, func(t *testing.T) {
			if _, _, err := decodeLookups(bad); err == nil {
				t.Fatal("damaged file decodes")
			}
			if err := os.WriteFile(files[0], bad, 0o600); err != nil {
				t.Fatal(err)
			}
			got, o, c := libcLookups(t, sc, addrs)
			if !reflect.DeepEqual(got, want) {
				t.Error("lookups with a damaged cache file differ from uncached lookups")
			}
			if !built(o) {
				t.Error("the damaged file was used")
			}
			c.Close()
			b, _ := os.ReadFile(files[0])
			if _, _, err := decodeLookups(b); err != nil {
				t.Errorf("the file was not rebuilt: %v", err)
			}
		})
	}
}

func flip(b []byte, i int) []byte {
	out := append([]byte(nil), b...)
	out[i] ^= 0x20
	return out
}

// TestSymbolCacheConcurrent: many writers (each with its own Cache, as
// separate processes are) share one directory; every file stays whole
// and every lookup right, and no temporary file is left.
func TestSymbolCacheConcurrent(t *testing.T) {
	addrs, want := libcSample(t)
	dir := t.TempDir()
	sc := NewSymbolCache(dir, 0)
	const writers = 8
	var wg sync.WaitGroup
	errs := make(chan string, writers*len(addrs))
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := NewCache()
			c.SetSymbolCache(sc)
			defer c.Close()
			o, err := c.Open(libcWithDebug(t).Path(), nil)
			if err != nil {
				errs <- err.Error()
				return
			}
			// Each writer looks up its own share, so that the files differ.
			for i := w; i < len(addrs); i += 2 {
				s, ok := o.Symbol(addrs[i])
				f, _ := o.SourceFrames(addrs[i])
				if len(f) == 0 {
					f = nil
				}
				if got := (lookupResult{s, ok, f}); !reflect.DeepEqual(got, want[i]) {
					errs <- fmt.Sprintf("writer %d: %#x: %+v, want %+v", w, addrs[i], got, want[i])
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for _, f := range cacheFiles(t, dir) {
		b, _ := os.ReadFile(f)
		if _, _, err := decodeLookups(b); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, symbolCacheTemp+"*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	if got, _, c := libcLookups(t, sc, addrs); !reflect.DeepEqual(got, want) {
		t.Error("lookups after concurrent writers differ from uncached lookups")
	} else {
		c.Close()
	}
}

// TestSymbolCacheTrim: past its bound the directory loses its least
// recently used files down to three quarters of the bound; a stale
// temporary file goes too, a fresh one (a writer at work) stays.
func TestSymbolCacheTrim(t *testing.T) {
	dir := t.TempDir()
	sc := NewSymbolCache(dir, 1000)
	base := time.Now().Add(-10 * time.Minute)
	for i := range 10 {
		p := filepath.Join(dir, fmt.Sprintf("%032x%s", i, symbolCacheExt))
		os.WriteFile(p, append([]byte(symbolCacheMagic), make([]byte, 200-len(symbolCacheMagic))...), 0o600)
		os.Chtimes(p, base.Add(time.Duration(i)*time.Second), base.Add(time.Duration(i)*time.Second))
	}
	stale, fresh := filepath.Join(dir, symbolCacheTemp+"1"), filepath.Join(dir, symbolCacheTemp+"2")
	os.WriteFile(stale, nil, 0o600)
	os.WriteFile(fresh, nil, 0o600)
	os.Chtimes(stale, base.Add(-2*staleTemp), base.Add(-2*staleTemp))
	sc.trim()
	var left []string
	for _, f := range cacheFiles(t, dir) {
		left = append(left, filepath.Base(f))
	}
	if want := []string{fmt.Sprintf("%032x.cus", 7), fmt.Sprintf("%032x.cus", 8), fmt.Sprintf("%032x.cus", 9)}; !reflect.DeepEqual(left, want) {
		t.Errorf("left %v, want the three most recently used %v", left, want)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("stale temporary file kept")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("fresh temporary file removed")
	}
}

// TestSymbolCacheUnwritable: a cache directory that cannot be created is
// no error: lookups work and Close succeeds.
func TestSymbolCacheUnwritable(t *testing.T) {
	addrs, want := libcSample(t)
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	got, _, c := libcLookups(t, NewSymbolCache(filepath.Join(file, "cache"), 0), addrs)
	if !reflect.DeepEqual(got, want) {
		t.Error("lookups differ with an unwritable cache")
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestSymbolCacheSettings: the environment variable turns the cache off;
// the default directory follows XDG_CACHE_HOME, then HOME.
func TestSymbolCacheSettings(t *testing.T) {
	t.Setenv(NoCacheEnv, "1")
	if sc := NewSymbolCache("/tmp/x", 0); sc != nil {
		t.Errorf("%s=1: cache %+v", NoCacheEnv, sc)
	}
	t.Setenv(NoCacheEnv, "0")
	if sc := NewSymbolCache("/tmp/x", 0); sc == nil || sc.Dir() != "/tmp/x" {
		t.Errorf("%s=0: cache %+v", NoCacheEnv, sc)
	}
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	if d := NewSymbolCache("", 0).Dir(); d != "/xdg/coreunwind" {
		t.Errorf("with XDG_CACHE_HOME: %s", d)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if d := NewSymbolCache("", 0).Dir(); d != "/home/u/.cache/coreunwind" {
		t.Errorf("with HOME only: %s", d)
	}
}

// FuzzSymbolCacheFile: any bytes either fail to decode or decode to
// lookups that encode and decode back to themselves, as a whole file and
// as a payload past the checksum (which random bytes seldom pass). The
// seeds are a file, a truncation and a corruption.
func FuzzSymbolCacheFile(f *testing.F) {
	l := newLookups()
	l.syms[0x10], l.syms[0x99] = symResult{Symbol{"f", "_Z1fv", 0x8, 0x20}, true}, symResult{}
	l.frames[0x10], l.frames[0x99] = []SourceFrame{{"g", "/a.c", 3, 4, true}, {"f", "/a.c", 9, 0, false}}, []SourceFrame{}
	l.named["f"], l.named["nope"] = symResult{Symbol{"f", "_Z1fv", 0x8, 0x20}, true}, symResult{}
	l.entries[0x10], l.entries[0x99] = entryResult{0x8, true}, entryResult{}
	l.calls[0x14], l.calls[0x15] = callSiteResult{CallSite{ReturnPC: 0x14, Tail: true, TargetAddr: 0x40, HasTargetAddr: true}, true}, callSiteResult{}
	l.tails[0x8], l.tails[0x9] = tailCallsResult{[]CallSite{{ReturnPC: 0x20, Tail: true, TargetName: "g"}}, true}, tailCallsResult{}
	good := encodeLookups("key", l)
	f.Add(good)
	f.Add(good[:len(good)-3])
	f.Add(flip(good, len(good)-5))
	f.Add(good[symbolCacheHeader:])
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, decode := range []func([]byte) (string, lookups, error){decodeLookups, decodePayload} {
			key, l, err := decode(b)
			if err != nil {
				continue
			}
			k2, l2, err := decodeLookups(encodeLookups(key, l))
			if err != nil || k2 != key || !reflect.DeepEqual(l2, l) {
				t.Fatalf("round trip: %v", err)
			}
		}
	})
}

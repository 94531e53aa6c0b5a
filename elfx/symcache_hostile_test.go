package elfx

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// shippedExe is the static executable of the shipped segv-static core:
// an object with a build ID and symbols, quick to open.
var shippedExe = filepath.Join("..", "testdata", "cores", "segv-static", "segv")

// cachedLookup opens shippedExe through a Cache with sc, looks main up
// and closes the Cache (which writes the cache file back).
func cachedLookup(t *testing.T, sc *SymbolCache) {
	t.Helper()
	c := NewCache()
	c.SetSymbolCache(sc)
	o, err := c.Open(shippedExe, nil)
	if err != nil {
		t.Fatal(err)
	}
	main, ok := o.LookupSymbol("main")
	if !ok {
		t.Fatal("main not found")
	}
	if s, ok := o.Symbol(main.Addr); !ok || s.Name != "main" {
		t.Errorf("Symbol(%#x) = %+v, %v; want main", main.Addr, s, ok)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

// filledSymbolCache fills a new cache directory with shippedExe's entry and
// returns the cache and the entry's path.
func filledSymbolCache(t *testing.T, maxBytes int64) (*SymbolCache, string) {
	t.Helper()
	sc := NewSymbolCache(t.TempDir(), maxBytes)
	cachedLookup(t, sc)
	files := cacheFiles(t, sc.Dir())
	if len(files) != 1 {
		t.Fatalf("cache files %v, want one", files)
	}
	return sc, files[0]
}

// TestSymbolCacheFIFOEntry: a named pipe where an object's cache file
// goes is passed over at once (it used to block in open(2) for a writer)
// and replaced by a real entry.
func TestSymbolCacheFIFOEntry(t *testing.T) {
	sc, entry := filledSymbolCache(t, 0)
	if err := os.Remove(entry); err != nil {
		t.Fatal(err)
	}
	testenv.Mkfifo(t, entry)
	testenv.NoHang(t, 10*time.Second, "a lookup with a FIFO as the cache file", func() { cachedLookup(t, sc) }, entry)
	if fi, err := os.Lstat(entry); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the FIFO was not replaced by a cache file: %v, %v", fi, err)
	}
}

// TestSymbolCacheSymlinkEntry: a cache file that is a symbolic link is
// not followed: the file it names (here a valid entry, someone's copy)
// is neither read nor touched (its modification time stays).
func TestSymbolCacheSymlinkEntry(t *testing.T) {
	sc, entry := filledSymbolCache(t, 0)
	elsewhere := filepath.Join(t.TempDir(), "someones-file")
	if err := os.Rename(entry, elsewhere); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour).Truncate(time.Second)
	if err := os.Chtimes(elsewhere, old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, entry); err != nil {
		t.Fatal(err)
	}
	c := NewCache()
	c.SetSymbolCache(sc)
	o, err := c.Open(shippedExe, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m := o.state().memo.Load(); m == nil || len(m.l.syms) != 0 {
		t.Error("the memo was loaded through the symbolic link")
	}
	c.Close()
	if fi, err := os.Stat(elsewhere); err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("the link's target was touched: %v, %v (mtime was %v)", fi.ModTime(), err, old)
	}
}

// TestSymbolCacheHugeEntry: a cache file larger than the cache's bound
// (a sparse file claiming 64 MB over a 1 MB cache) is not read: it used
// to be read whole, so /dev/zero or a 3 GB sparse file exhausted memory.
func TestSymbolCacheHugeEntry(t *testing.T) {
	sc, entry := filledSymbolCache(t, 1<<20)
	f, err := os.Create(entry)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c := NewCache()
	c.SetSymbolCache(sc)
	if _, err := c.Open(shippedExe, nil); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	c.Close()
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
		t.Errorf("opening with a 64 MB cache file allocated %d MB", n>>20)
	}
}

// TestSymbolCacheTrimOwnFilesOnly: trimming removes only what coreunwind
// wrote: names it makes holding its format (a stale temporary file may
// hold a prefix of it). A user's files in the directory stay, whatever
// their names, ages and sizes, and so does a symbolic link's target.
func TestSymbolCacheTrimOwnFilesOnly(t *testing.T) {
	dir := t.TempDir()
	sc := NewSymbolCache(dir, 100)
	old := time.Now().Add(-2 * staleTemp)
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	big := strings.Repeat("x", 200)
	ownEntry := "0123456789abcdef0123456789abcdef" + symbolCacheExt
	write(ownEntry, symbolCacheMagic+big)
	write(symbolCacheTemp+"123", symbolCacheMagic[:4])  // a writer died after 4 bytes
	write(symbolCacheTemp+"456", "")                    // or before writing
	write("notes.cus", "my notes "+big)                 // not a name coreunwind makes
	write("fedcba9876543210fedcba9876543210.cus", big)  // its name, not its format
	write(symbolCacheTemp+"report", "draft "+big)       // not os.CreateTemp's name
	write(symbolCacheTemp+"789", "someone else's "+big) // its name, not its format
	precious := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(precious, []byte(symbolCacheMagic+big), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(precious, filepath.Join(dir, "00000000000000000000000000000000.cus")); err != nil {
		t.Fatal(err)
	}
	sc.trim()
	var left []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		left = append(left, e.Name())
	}
	want := []string{".tmp-789", ".tmp-report", "00000000000000000000000000000000.cus", "fedcba9876543210fedcba9876543210.cus", "notes.cus"}
	if !slices.Equal(left, want) {
		t.Errorf("left %q, want %q (only coreunwind's own files removed)", left, want)
	}
	if _, err := os.Stat(precious); err != nil {
		t.Errorf("the link's target: %v", err)
	}
}

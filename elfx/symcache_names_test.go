package elfx

import (
	"regexp"
	"testing"
)

// TestSymbolCacheNames checks isSymbolCacheName and isSymbolCacheTempName
// against the regexps they replaced (compiled here, not at every start):
// trim must remove exactly the names it did.
func TestSymbolCacheNames(t *testing.T) {
	cacheName := regexp.MustCompile(`^[0-9a-f]{32}` + regexp.QuoteMeta(symbolCacheExt) + `$`)
	tempName := regexp.MustCompile(`^` + regexp.QuoteMeta(symbolCacheTemp) + `[0-9]+$`)
	hex32 := "0123456789abcdef0123456789abcdef"
	names := []string{
		"", symbolCacheExt, symbolCacheTemp,
		hex32 + symbolCacheExt, hex32[:31] + symbolCacheExt, hex32 + "0" + symbolCacheExt,
		"0123456789ABCDEF0123456789abcdef" + symbolCacheExt, hex32 + symbolCacheExt + ".x",
		hex32, "x" + hex32 + symbolCacheExt, "g123456789abcdef0123456789abcdef" + symbolCacheExt,
		symbolCacheTemp + "1", symbolCacheTemp + "1234567890", symbolCacheTemp + "12a",
		symbolCacheTemp + "-1", "x" + symbolCacheTemp + "1", symbolCacheTemp + "1\n",
	}
	for _, n := range names {
		if got, want := isSymbolCacheName(n), cacheName.MatchString(n); got != want {
			t.Errorf("isSymbolCacheName(%q) = %v, want %v", n, got, want)
		}
		if got, want := isSymbolCacheTempName(n), tempName.MatchString(n); got != want {
			t.Errorf("isSymbolCacheTempName(%q) = %v, want %v", n, got, want)
		}
	}
}

package corefile

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// maxCoreSizeEnv names the environment variable that sets MaxCoreSize.
const maxCoreSizeEnv = "COREUNWIND_MAX_CORE_SIZE"

// defaultMaxCoreSize is MaxCoreSize when the environment does not set
// it. A core's own headers bound it more tightly (elfExtent); this is
// for a core whose headers declare more, or a stream with no ELF header.
const defaultMaxCoreSize = 1 << 40

// errTooLarge: a decompressed core would exceed MaxCoreSize.
var errTooLarge = errors.New("decompressed core too large")

// MaxCoreSize is the most a compressed core (or archive member) is
// decompressed to: COREUNWIND_MAX_CORE_SIZE, a number of bytes with an
// optional K, M, G or T suffix (powers of 1024), or 1 TiB. An invalid
// value is an error, not a silent default.
func MaxCoreSize() (int64, error) {
	v := strings.TrimSpace(os.Getenv(maxCoreSizeEnv))
	if v == "" {
		return defaultMaxCoreSize, nil
	}
	n, err := parseSize(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: %w", maxCoreSizeEnv, v, err)
	}
	return n, nil
}

// parseSize reads "123", "64M", "2G", "1T" (powers of 1024).
func parseSize(s string) (int64, error) {
	shift := 0
	if i := strings.IndexAny(s, "KMGTkmgt"); i >= 0 && i == len(s)-1 {
		shift = 10 * (1 + strings.IndexByte("KMGT", strings.ToUpper(s[i:])[0]))
		s = s[:i]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, errors.New("want a positive number of bytes, optionally with a K, M, G or T suffix")
	}
	if n > (1<<63-1)>>shift {
		return 0, errors.New("too large")
	}
	return n << shift, nil
}

package pylayout

import (
	"path/filepath"
	"strconv"
	"strings"
)

// FromLibName tells CPython's version and build from the name of its
// library or executable, as the ABI flags spell them: libpython3.11.so.1.0,
// libpython3.7dm.so.1.0 (d: Py_DEBUG; m: pymalloc, before 3.8),
// libpython3.13t.so (t: free-threaded), python3.11d. ok is false for any
// other name.
func FromLibName(name string) (v Version, b Build, ok bool) {
	ok = parseLibName(filepath.Base(name), &v, &b)
	return v, b, ok
}

func parseLibName(name string, v *Version, b *Build) bool {
	rest, found := strings.CutPrefix(name, "libpython")
	if !found {
		if rest, found = strings.CutPrefix(name, "python"); !found {
			return false
		}
	}
	major, rest, found := strings.Cut(rest, ".")
	if !found || major != "3" {
		return false
	}
	digits := 0
	for digits < len(rest) && digits < 3 && rest[digits] >= '0' && rest[digits] <= '9' {
		digits++
	}
	if digits == 0 {
		return false
	}
	minor, _ := strconv.Atoi(rest[:digits])
	var build Build
	flags := rest[digits:]
	for len(flags) > 0 && flags[0] != '.' {
		switch flags[0] {
		case 'd':
			build |= Debug
		case 't':
			build |= FreeThreaded
		case 'm', 'u':
		default:
			return false
		}
		flags = flags[1:]
	}
	if flags != "" && !strings.HasPrefix(flags, ".so") && flags != ".a" {
		return false
	}
	*v, *b = Version{3, minor}, build
	return true
}

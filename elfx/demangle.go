package elfx

import (
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// Demangle returns the human-readable form of a C++ or Rust (legacy and
// v0) symbol name, as c++filt and addr2line -C print it. An ELF symbol
// version suffix (foo@@GLIBC_2.2.5) is removed first. Names that are not
// mangled, or that the demangler rejects, come back unchanged (minus the
// version suffix), so the caller always has something to print.
func Demangle(name string) string {
	if i := strings.IndexByte(name, '@'); i > 0 {
		name = name[:i]
	}
	if !maybeMangled(name) {
		return name
	}
	if out, ok := demangleRustLegacy(name); ok {
		return out
	}
	out, err := demangle.ToString(name)
	if err != nil || out == "" {
		return name
	}
	return out
}

// maybeMangled is a cheap pre-check: Itanium C++ and Rust legacy names
// start with _Z (or __Z on some platforms), Rust v0 names with _R. It keeps
// C and Go names, the vast majority in most binaries, away from the
// demangler.
func maybeMangled(name string) bool {
	return strings.HasPrefix(name, "_Z") || strings.HasPrefix(name, "__Z") || strings.HasPrefix(name, "_R")
}

package analyze

import (
	"debug/elf"
	"strings"

	"github.com/coreunwind/coreunwind/elfx"
)

// exeRustSymbol finds a Rust static of the main executable by its path
// ("std::thread::current::CURRENT"): Rust's symbol names carry a hash
// (legacy mangling) or a crate disambiguator (v0) that differ with each
// toolchain, so the path is compared with the demangled name, without
// LLVM's ".N" suffix of a split global. The value is a thread-local
// symbol's offset in the executable's TLS segment, or a data symbol's
// run-time address.
func (t *target) exeRustSymbol(path string) (value uint64, tls, ok bool) {
	syms, bias := t.exeSymbols()
	// Both manglings spell a plain identifier as it is: the path's last
	// one picks the few names worth demangling.
	leaf := path
	if i := strings.LastIndex(path, "::"); i >= 0 {
		leaf = path[i+2:]
	}
	if strings.Trim(leaf, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != "" {
		leaf = "" // {closure#0}, punycode: compare every name
	}
	for _, sym := range syms {
		typ := elf.ST_TYPE(sym.Info)
		if typ != elf.STT_TLS && typ != elf.STT_OBJECT || sym.Section == elf.SHN_UNDEF ||
			!strings.HasPrefix(sym.Name, "_R") && !strings.HasPrefix(sym.Name, "_ZN") ||
			!strings.Contains(sym.Name, leaf) {
			continue
		}
		name := sym.Name
		if i := strings.LastIndexByte(name, '.'); i > 0 && strings.HasPrefix(name, "_R") {
			name = name[:i]
		}
		if elfx.Demangle(name) != path {
			continue
		}
		if typ == elf.STT_TLS {
			return sym.Value, true, true
		}
		return sym.Value + bias, false, true
	}
	return 0, false, false
}

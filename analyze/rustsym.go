package analyze

import (
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
	obj, bias := t.exeObject()
	if obj == nil {
		return 0, false, false
	}
	statics, _ := obj.Keyed(rustStaticsKey{}, func() any { return readRustStatics(obj) }).(map[string]rustStatic)
	s, ok := statics[path]
	if !ok {
		return 0, false, false
	}
	if s.tls {
		return s.value, true, true
	}
	return s.value + bias, false, true
}

// rustStaticsKey keys an executable's Rust statics on its object.
type rustStaticsKey struct{}

// rustStatic is one Rust static of an executable: a thread-local's offset
// in the TLS segment, or a data symbol's address in the file.
type rustStatic struct {
	value uint64
	tls   bool
}

// readRustStatics reads obj's Rust statics by demangled path, the first
// symbol of each path: once per executable, as the cores of a batch
// share it (demangling every static of the symbol table for each core's
// three lookups was a third of a batch of Rust cores' CPU).
func readRustStatics(obj *elfx.Object) map[string]rustStatic {
	statics := make(map[string]rustStatic)
	obj.DataSymbols(func(sym elfx.DataSymbol) {
		if !strings.HasPrefix(sym.Name, "_R") && !strings.HasPrefix(sym.Name, "_ZN") {
			return
		}
		name := sym.Name
		if i := strings.LastIndexByte(name, '.'); i > 0 && strings.HasPrefix(name, "_R") {
			name = name[:i]
		}
		path := elfx.Demangle(name)
		if _, seen := statics[path]; !seen {
			statics[strings.Clone(path)] = rustStatic{value: sym.Value, tls: sym.TLS}
		}
	})
	return statics
}

package elfx

import "testing"

// Legacy Rust names as binutils' nm -C, gdb and rustc-demangle print
// them (without the hash): identifiers that start with underscores keep
// them, escapes are undone.
func TestDemangleRustLegacy(t *testing.T) {
	for in, want := range map[string]string{
		"_ZN3std10sys_common11thread_info11THREAD_INFO7__getit17h1f2d3e7db64f38aaE.llvm.14675764578384208085":                     "std::sys_common::thread_info::THREAD_INFO::__getit",
		"_ZN3std2io5stdio6_print17he04414d477e307fdE":                                                                             "std::io::stdio::_print",
		"_ZN3std9backtrace28_$u7b$$u7b$closure$u7d$$u7d$17h25c7d2af286a01e6E":                                                     "std::backtrace::{{closure}}",
		"_ZN58_$LT$alloc..string..String$u20$as$u20$core..fmt..Debug$GT$3fmt17h0123456789abcdefE":                                 "<alloc::string::String as core::fmt::Debug>::fmt",
		"_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$17h0123456789abcdefE": "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>",
	} {
		if got := Demangle(in); got != want {
			t.Errorf("Demangle(%s) = %q, want %q", in, got, want)
		}
	}
	for _, notRust := range []string{"_ZN3foo3barE", "_ZN3foo17hxyzE", "_ZN99fooE", "_ZNSt6vectorIiSaIiEE9push_backERKi"} {
		if _, ok := demangleRustLegacy(notRust); ok {
			t.Errorf("%s read as legacy Rust", notRust)
		}
	}
}

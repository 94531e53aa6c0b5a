package triage

import (
	"strings"
	"testing"
	"time"
)

func TestNormalizeFunction(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"parse_header", "parse_header"},
		{"parse_header.isra.0", "parse_header"},
		{"parse_header.part.3", "parse_header"},
		{"parse_header.cold", "parse_header"},
		{"parse_header.constprop.0.isra.0", "parse_header"},
		{"parse_header.part.0.cold", "parse_header"},
		{"foo.llvm.14675764578384208085", "foo"},
		{"runtime.clone", "runtime.clone"},
		{"main.part", "main.part"},
		{"__GI_raise", "raise"},
		{"__GI___libc_free", "__libc_free"},
		{"memcpy@@GLIBC_2.14", "memcpy"},
		{"foo+0x1a", "foo"},
		{"ns::Parser::parse(char const*, unsigned long)", "ns::Parser::parse"},
		{"ns::Parser::parse(char const*) const", "ns::Parser::parse"},
		{"std::vector<int, std::allocator<int> >::at(unsigned long)", "std::vector::at"},
		{"void ns::apply<int>(int&&)", "ns::apply"},
		{"int checkedAdd<int>(int, int)", "checkedAdd"},
		{"(anonymous namespace)::helper(int)", "(anonymous namespace)::helper"},
		{"foo(int)::{lambda(int)#1}::operator()(int) const", "foo::{lambda#1}::operator()"},
		{"Big::operator<<(int)", "Big::operator<<"},
		{"Big::operator==(Big const&) const", "Big::operator=="},
		{"Big::operator[](unsigned long)", "Big::operator[]"},
		{"operator new(unsigned long)", "operator new"},
		{"Foo::operator bool() const", "Foo::operator bool"},
		{"std::__cxx11::basic_string<char>::basic_string[abi:cxx11](char const*)", "std::__cxx11::basic_string::basic_string"},
		{"work(int) [clone .cold]", "work"},
		{"panic::level3::h0123456789abcdef", "panic::level3"},
		{"<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop", "<alloc::vec::Vec as core::ops::drop::Drop>::drop"},
		{"core::ptr::drop_in_place<alloc::string::String>", "core::ptr::drop_in_place"},
		{"main.(*Server).handle", "main.(*Server).handle"},
		{"main.main.func1", "main.main.func1"},
		{"github.com/x/y.(*T).Run", "github.com/x/y.(*T).Run"},
		{"cut_name(int", "cut_name"},
		{"__strlen_evex", "strlen"},
		{"__strlen_avx2", "strlen"},
		{"__memmove_avx_unaligned_erms", "memmove"},
		{"__memcpy_avx512_unaligned_erms", "memcpy"},
		{"__strcmp_sse2_unaligned", "strcmp"},
		{"__wmemset_evex_unaligned", "wmemset"},
		{"__memcpy_chk", "__memcpy_chk"},
		{"__libc_start_main", "__libc_start_main"},
		{"", ""},
	} {
		if got := NormalizeFunction(tc.in); got != tc.want {
			t.Errorf("NormalizeFunction(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzNormalizeFunction(f *testing.F) {
	f.Add("foo(int)::{lambda(int)#1}::operator()(int) const")
	f.Add("<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop")
	f.Add("operator<<<")
	f.Fuzz(func(t *testing.T, s string) {
		n := NormalizeFunction(s)
		if len(n) > len(s)+len("(anonymous namespace)") {
			t.Fatalf("%q grew to %q", s, n)
		}
		if NormalizeFunction(n) != n {
			t.Fatalf("not stable: %q -> %q", s, n)
		}
	})
}

// TestNormalizeLongNames: hostile names cost bounded time (a fuzzer found
// quadratic version stripping).
func TestNormalizeLongNames(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("(", 1<<16), strings.Repeat("a<", 1<<15), strings.Repeat("operator", 1<<13),
		strings.Repeat("a(b)", 1<<14), strings.Repeat("@0", 1<<15), strings.Repeat("x.isra.0", 1<<13),
		strings.Repeat(" a", 1<<15), strings.Repeat("__GI_", 1<<13), strings.Repeat("a const", 1<<13),
	} {
		start := time.Now()
		NormalizeFunction(s)
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Errorf("%q...: %v", s[:16], d)
		}
	}
}

package elfx

import "testing"

func TestStripParams(t *testing.T) {
	for in, want := range map[string]string{
		"geo::outer_call(geo::Point<int> const*, int)":               "geo::outer_call",
		"S::operator()(int) const":                                   "S::operator()",
		"main::{lambda()#1}::operator()() const":                     "main::{lambda()#1}::operator()",
		"std::vector<int, std::allocator<int> >::push_back(int&&) &": "std::vector<int, std::allocator<int> >::push_back",
		"(anonymous namespace)::f(void (*)(int))":                    "(anonymous namespace)::f",
		"plain":                  "plain",
		"core::panicking::panic": "core::panicking::panic",
		"(broken":                "(broken",
	} {
		if got := stripParams(in); got != want {
			t.Errorf("stripParams(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsRustSymbol(t *testing.T) {
	for s, want := range map[string]bool{
		"_ZN5alloc7raw_vec20RawVecInner$LT$A$GT$16with_capacity_in17h0e18deb32e760941E": true,
		"_RNvCs56HGsqMBDvY_4prog4main":         true,
		"_ZN3geo10outer_callEPKNS_5PointIiEEi": false,
		"_ZN3foo3barE":                         false,
		"main":                                 false,
	} {
		if got := isRustSymbol(s); got != want {
			t.Errorf("isRustSymbol(%q) = %v", s, got)
		}
	}
}

package elfx

import "strings"

// stripParams drops the parameter list (and the cv- and ref-qualifiers
// after it) from a demangled C++ name, the way gdb names frames:
// "geo::outer_call(geo::Point<int> const*, int)" is "geo::outer_call",
// "S::operator()(int) const" is "S::operator()". Names without a
// parameter list come back unchanged.
func stripParams(name string) string {
	s := name
	for {
		t := strings.TrimSpace(s)
		for _, q := range []string{" const", " volatile", " &&", " &", " noexcept"} {
			t = strings.TrimSuffix(t, q)
		}
		if t == s {
			break
		}
		s = t
	}
	if !strings.HasSuffix(s, ")") {
		return name
	}
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				if i == 0 {
					return name
				}
				return s[:i]
			}
		}
	}
	return name
}

// isRustSymbol reports a Rust mangled name: v0 ("_R...") or legacy, an
// Itanium-style path ending in the ::h<16 hex digits> hash ("17h...E").
func isRustSymbol(s string) bool {
	if strings.HasPrefix(s, "_R") {
		return true
	}
	if !strings.HasPrefix(s, "_ZN") || len(s) < 23 || !strings.HasSuffix(s, "E") {
		return false
	}
	h := s[len(s)-20 : len(s)-1] // "17h" + 16 hex digits
	if !strings.HasPrefix(h, "17h") {
		return false
	}
	for _, c := range h[3:] {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

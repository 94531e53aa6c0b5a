package report

import (
	"unicode/utf8"
)

// validUTF8 replaces each byte of s that is not part of a UTF-8 sequence
// with U+FFFD, as the JSON writer (and encoding/json) does: a name from
// a hostile core or binary reads the same in every output, and formats
// whose strings must be UTF-8 (protobuf's) stay valid.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(b)
}

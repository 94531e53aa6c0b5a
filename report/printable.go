package report

import (
	"strconv"
	"unicode/utf8"
)

// Printable is s as the text writers print a string that came from the
// input (a path or command line stored in a core, a symbol name of a
// hostile binary, a server's message): printable characters as they are,
// everything else (terminal escapes, control characters, bytes that are
// not UTF-8) in Go's escapes, \x1b, \n, \xff, \u200e, exactly as %q
// writes the thread names. A core cannot then drive the reader's
// terminal, and a line stays one line. JSON needs none of this: its
// encoder escapes what it must.
func Printable(s string) string {
	if printableAlready(s) {
		return s
	}
	return string(appendPrintable(make([]byte, 0, len(s)+16), s))
}

// appendPrintable appends Printable(s) to b.
func appendPrintable(b []byte, s string) []byte {
	if printableAlready(s) {
		return append(b, s...)
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || !strconv.IsPrint(r) {
			q := strconv.Quote(s[i : i+size]) // the escape, quoted
			b = append(b, q[1:len(q)-1]...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return b
}

// printableAlready reports whether s prints as it is: the common case,
// checked without decoding for ASCII.
func printableAlready(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return false
		} else if c >= utf8.RuneSelf {
			for _, r := range s[i:] {
				if r == utf8.RuneError || !strconv.IsPrint(r) {
					return false
				}
			}
			return true
		}
	}
	return true
}

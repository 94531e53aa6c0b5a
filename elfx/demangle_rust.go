package elfx

import "strings"

// Rust's legacy mangling (rustc's default before 1.70 and Debian 12's
// rustc 1.63): an Itanium-style nested name _ZN <len><ident>... E whose
// last identifier is the hash h<16 hex digits>, optionally followed by
// a suffix LLVM adds (".llvm.1234"). Identifiers escape what Itanium
// names cannot hold: $SP$ @, $BP$ *, $RF$ &, $LT$ <, $GT$ >, $LP$ (,
// $RP$ ), $C$ ",", $uXX$ the character XX, ".." "::"; an identifier
// that starts with an escape gets a leading underscore, which is not
// part of the name.
//
// The demangle module reads a "_" after a length as a separator and
// drops it, so "7__getit" comes out as "_getit" (std's thread-local
// accessors, __rust_begin_short_backtrace); binutils, gdb and
// rustc-demangle keep it. Legacy names are therefore demangled here.

// rustLegacyEscapes are the two-letter escapes between dollars.
var rustLegacyEscapes = map[string]byte{"SP": '@', "BP": '*', "RF": '&', "LT": '<', "GT": '>', "LP": '(', "RP": ')', "C": ','}

// demangleRustLegacy demangles a legacy Rust name without its hash, as
// gdb prints it; ok is false for names that are not legacy Rust.
func demangleRustLegacy(name string) (string, bool) {
	if i := strings.Index(name, "E."); i > 0 {
		name = name[:i+1] // ".llvm.N" and similar suffixes
	}
	if !strings.HasPrefix(name, "_ZN") || !strings.HasSuffix(name, "E") {
		return "", false
	}
	rest := name[3 : len(name)-1]
	var idents []string
	for rest != "" {
		n := 0
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			n = n*10 + int(rest[i]-'0')
			i++
			if n > len(rest) {
				return "", false
			}
		}
		if i == 0 || n == 0 || len(rest)-i < n {
			return "", false
		}
		idents = append(idents, rest[i:i+n])
		rest = rest[i+n:]
	}
	if len(idents) < 2 || !isRustHash(idents[len(idents)-1]) {
		return "", false
	}
	var b strings.Builder
	for k, id := range idents[:len(idents)-1] {
		if k > 0 {
			b.WriteString("::")
		}
		if !writeRustIdent(&b, id) {
			return "", false
		}
	}
	return b.String(), true
}

// isRustHash reports whether id is h followed by 16 hex digits.
func isRustHash(id string) bool {
	if len(id) != 17 || id[0] != 'h' {
		return false
	}
	for _, c := range id[1:] {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// writeRustIdent writes one identifier with its escapes undone.
func writeRustIdent(b *strings.Builder, id string) bool {
	if strings.HasPrefix(id, "_$") {
		id = id[1:]
	}
	for id != "" {
		switch {
		case strings.HasPrefix(id, ".."):
			b.WriteString("::")
			id = id[2:]
		case id[0] == '$':
			end := strings.IndexByte(id[1:], '$')
			if end < 0 {
				return false
			}
			code := id[1 : 1+end]
			id = id[2+end:]
			if c, ok := rustLegacyEscapes[code]; ok {
				b.WriteByte(c)
				continue
			}
			if len(code) != 3 || code[0] != 'u' {
				return false
			}
			var v byte
			for _, h := range code[1:] {
				d := strings.IndexRune("0123456789abcdef", h)
				if d < 0 {
					return false
				}
				v = v<<4 | byte(d)
			}
			if v < ' ' || v > '~' {
				return false
			}
			b.WriteByte(v)
		default:
			b.WriteByte(id[0])
			id = id[1:]
		}
	}
	return true
}

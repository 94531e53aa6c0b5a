package triage

import (
	"regexp"
	"strings"
	"sync"
)

// Names in a signature must not change when nothing about the bug
// changed: not with the arguments' types (C++ overloads print them), the
// template arguments, the compiler's clone suffixes (.isra.0, .cold,
// .part.1 differ between builds and optimization levels), glibc's
// internal aliases (__GI_raise is raise), or a Rust build's hash.

// nameREs are the patterns normalizeOnce applies. They are compiled on
// first use, not at start-up: every coreunwind run links this package
// (compiling them cost 0.46M instructions a run), few runs triage.
type nameREs struct {
	cloneSuffix, cloneBracket, abiTag, rustHash, offset, lambda, ifuncVariant *regexp.Regexp
}

var namePatterns = sync.OnceValue(func() *nameREs {
	return &nameREs{
		// The suffixes GCC and LLVM number (.isra.0, .llvm.123) only with
		// their number: a Go function named clone or part
		// (runtime.clone) is not a clone of runtime.
		cloneSuffix:  regexp.MustCompile(`(\.((isra|part|constprop|lto_priv|llvm|clone)\.[0-9]+|cold|localalias|plt)(\.[0-9a-z]+)?)+$`),
		cloneBracket: regexp.MustCompile(`\s*\[clone [^\]]*\]`),
		abiTag:       regexp.MustCompile(`\[abi:[^\]]*\]`),
		rustHash:     regexp.MustCompile(`::h[0-9a-f]{16}$`),
		offset:       regexp.MustCompile(`\+0x[0-9a-fA-F]+$`),
		lambda:       regexp.MustCompile(`\{lambda\(\)#`),
		// glibc's ifunc variants of string functions, one per CPU
		// feature set (x86's, aarch64's __strlen_mte and __memcpy_sve,
		// s390x's __strlen_vx, POWER's __strlen_power9): cores from
		// different machines and architectures must agree.
		ifuncVariant: regexp.MustCompile(`^__((?:mem|str|stp|wcs|wmem|raw|wcp)[a-z0-9]*?)_(?:sse2|ssse3|sse4_1|sse4_2|sse42|avx|avx2|avx512|evex|evex512|erms|unaligned|aligned|generic|rtm|bmi2|x86_64|mte|asimd|sve|nosimd|thunderx2?|falkor|kunpeng|a64fx|emag|oryon1|vx|z13|z196|z10|z900|power[0-9]+|ppc|ppc64|power)(?:_[a-z0-9_]+)?$`),
	}
})

// NormalizeFunction returns the name of a function as a signature uses
// it: no argument lists, template arguments, return types, cv- or
// ref-qualifiers, clone suffixes, symbol versions, "+0x..." offsets,
// glibc __GI_ prefixes, glibc's CPU-specific variant suffixes
// (__strlen_evex is strlen) or Rust hashes. Go names (main.(*T).M) and Rust
// qualified paths (<T as Trait>::f) keep their shape.
func NormalizeFunction(name string) string {
	// One pass can expose what another removes ("f@V1@V2", "g(x) const
	// const"): repeat to a fixed point, so that a normalized name
	// normalizes to itself. Each pass that changes the name shortens it.
	s := name
	if len(s) > maxNameLen {
		s = s[:maxNameLen]
	}
	for range 64 {
		t := normalizeOnce(s)
		if t == s {
			break
		}
		s = t
	}
	return s
}

// maxNameLen bounds the work on one name (hostile symbol tables): longer
// names are cut, which keeps them distinct enough for a signature.
const maxNameLen = 4096

func normalizeOnce(name string) string {
	re := namePatterns()
	s := stripVersion(strings.TrimSpace(name))
	s = re.offset.ReplaceAllString(s, "")
	s = re.cloneBracket.ReplaceAllString(s, "")
	s = re.abiTag.ReplaceAllString(s, "")
	s = re.rustHash.ReplaceAllString(s, "")
	s = stripBrackets(s)
	s = re.lambda.ReplaceAllString(s, "{lambda#")
	for _, q := range []string{" const", " volatile", " &&", " &", " noexcept"} {
		s = strings.TrimSuffix(s, q)
	}
	s = dropReturnType(s)
	s = re.cloneSuffix.ReplaceAllString(s, "")
	for strings.HasPrefix(s, "__GI_") {
		s = strings.TrimPrefix(s, "__GI_")
	}
	s = re.ifuncVariant.ReplaceAllString(s, "$1")
	return strings.TrimSpace(s)
}

// stripVersion removes an ELF symbol version ("memcpy@@GLIBC_2.14").
func stripVersion(s string) string {
	i := strings.IndexByte(s, '@')
	if i <= 0 {
		return s
	}
	v := strings.TrimPrefix(s[i+1:], "@")
	if v == "" {
		return s
	}
	for _, c := range v {
		if !(c == '_' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			return s
		}
	}
	return s[:i]
}

// stripBrackets removes template argument lists (a '<' right after a
// name) and argument lists ('(' after a name or '>'), keeping operator
// names, "(anonymous namespace)", Go receivers ("pkg.(*T)") and Rust's
// qualified-path brackets ("<T as Trait>", whose inner template
// arguments are removed).
func stripBrackets(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	afterOperator := false // just wrote an operator's name: '(' opens its arguments
	for i := 0; i < len(s); i++ {
		c := s[i]
		out := b.String()
		wasOperator := afterOperator
		afterOperator = false
		if strings.HasSuffix(out, "operator") {
			// operator(), operator<<=, operator->, operator[]: the
			// operator's own characters are the name.
			if strings.HasPrefix(s[i:], "()") {
				b.WriteString("()")
				i++
				afterOperator = true
				continue
			}
			j := i
			for j < len(s) && strings.IndexByte("<>=[]-+*/%!~^&|,", s[j]) >= 0 {
				j++
			}
			if j > i {
				b.WriteString(s[i:j])
				i = j - 1
				afterOperator = true
				continue
			}
		}
		switch c {
		case '<':
			if afterName(out) {
				i = skipBalanced(s, i, '<', '>')
				continue
			}
		case '(':
			if strings.HasPrefix(s[i:], "(anonymous namespace)") {
				b.WriteString("(anonymous namespace)")
				i += len("(anonymous namespace)") - 1
				continue
			}
			if strings.HasSuffix(out, ".") {
				break // a Go method receiver: main.(*T).M
			}
			if wasOperator || afterName(out) {
				i = skipBalanced(s, i, '(', ')')
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// afterName: the text so far ends in an identifier (or a closing bracket
// of one), so a bracket here opens arguments rather than a qualified path.
func afterName(out string) bool {
	if out == "" {
		return false
	}
	c := out[len(out)-1]
	return c == '_' || c == '$' || c == ']' || c == '}' || c == '>' || c == ')' ||
		(c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// skipBalanced returns the index of the bracket that closes the one at i
// (the last index when it never closes: a cut name).
func skipBalanced(s string, i int, open, close byte) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(s) - 1
}

// dropReturnType removes the return type C++ demanglers print before
// template functions ("int foo<int>(int)" is "foo"): everything before the
// last space outside brackets, unless that space belongs to an operator
// name ("operator new", "operator bool").
func dropReturnType(s string) string {
	depth := 0
	cut := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '<', '[', '{':
			depth++
		case ')', '>', ']', '}':
			if depth > 0 {
				depth--
			}
		case ' ':
			if depth == 0 && !strings.HasSuffix(s[:i], "operator") && !strings.HasSuffix(s[:i], " as") {
				cut = i
			}
		}
	}
	if cut < 0 {
		return s
	}
	// "T as Trait" inside Rust's <...> is at depth 1; a space at depth 0
	// after "operator new" is the return type's.
	return s[cut+1:]
}

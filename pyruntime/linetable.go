package pyruntime

// Location table of CPython 3.11 and later (co_linetable, PEP 657; the
// format of Objects/locations.md): entries of a first byte with bit 7
// set, code = bits 3-6, length = bits 0-2 plus 1 code units, and the
// bytes that code adds. Only the line is read here.
const (
	locNone     = 15 // no location: the line is -1
	locLong     = 14 // line delta (signed varint), end line, columns
	locNoColumn = 13 // line delta (signed varint)
	locOneLine0 = 10 // 10, 11, 12: the line moves by 0, 1, 2
)

// codeUnit is sizeof(_Py_CODEUNIT): addresses in the table count bytes.
const codeUnit = 2

// lineAt is the line of the instruction at byte offset addr (lasti *
// sizeof(_Py_CODEUNIT)) in a code object whose first line is first and
// whose location table is table, as PyCode_Addr2Line computes it: -1
// where the table gives the instruction no line, first before the first
// instruction.
func lineAt(table []byte, first int, addr int) int {
	if addr < 0 {
		return first
	}
	line, end := first, 0
	for i := 0; i < len(table); {
		b := table[i]
		code := int(b >> 3 & 15)
		start := end
		end += (int(b&7) + 1) * codeUnit
		i++
		delta := 0
		switch {
		case code == locLong || code == locNoColumn:
			delta, _ = signedVarint(table, i)
		case code >= locOneLine0 && code < locNoColumn:
			delta = code - locOneLine0
		}
		line += delta
		if addr >= start && addr < end {
			if code == locNone {
				return -1
			}
			return line
		}
		// The next entry starts at the next byte with bit 7 set.
		for i < len(table) && table[i]&0x80 == 0 {
			i++
		}
	}
	return -1
}

// varint reads the table's unsigned varint at i: 6 bits a byte, bit 6
// says another byte follows. n is how many bytes it took.
func varint(table []byte, i int) (v uint32, n int) {
	var shift uint
	for ; i+n < len(table) && shift < 32; n++ {
		b := table[i+n]
		v |= uint32(b&63) << shift
		shift += 6
		if b&64 == 0 {
			return v, n + 1
		}
	}
	return v, n
}

// signedVarint reads a signed varint: the sign in the lowest bit.
func signedVarint(table []byte, i int) (int, int) {
	u, n := varint(table, i)
	if u&1 != 0 {
		return -int(u >> 1), n
	}
	return int(u >> 1), n
}

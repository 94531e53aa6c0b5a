package report

import "math/bits"

const hexDigits = "0123456789abcdef"

// appendHex appends v in lower-case hex digits, zero-padded on the left
// to width (fmt's %0*x; width 0: no padding). Both writers print three
// addresses or more a frame, and strconv's generic digit loop costs
// several times this.
func appendHex(b []byte, v uint64, width int) []byte {
	n := (bits.Len64(v|1) + 3) / 4
	for ; width > n; width-- {
		b = append(b, '0')
	}
	var buf [16]byte
	for i := n - 1; i >= 0; i-- {
		buf[i] = hexDigits[v&0xf]
		v >>= 4
	}
	return append(b, buf[:n]...)
}

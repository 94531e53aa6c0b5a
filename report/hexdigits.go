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
	i := n
	for ; i >= 2; i -= 2 { // two digits a step
		d := 2 * (v & 0xff)
		buf[i-2], buf[i-1] = hexPairs[d], hexPairs[d+1]
		v >>= 8
	}
	if i == 1 {
		buf[0] = hexDigits[v&0xf]
	}
	return append(b, buf[:n]...)
}

// hexPairs is every byte's two hex digits, "00" to "ff".
var hexPairs = func() string {
	var b [512]byte
	for i := range 256 {
		b[2*i], b[2*i+1] = hexDigits[i>>4], hexDigits[i&0xf]
	}
	return string(b[:])
}()

package inflate

import (
	"bytes"
	"errors"
	"testing"
)

// bitWriter packs a DEFLATE stream by hand: Huffman codes most
// significant bit first, other fields least significant bit first.
type bitWriter struct {
	out   []byte
	nbits uint
}

func (w *bitWriter) bit(b uint32) {
	if w.nbits%8 == 0 {
		w.out = append(w.out, 0)
	}
	w.out[len(w.out)-1] |= byte(b&1) << (w.nbits % 8)
	w.nbits++
}

func (w *bitWriter) field(v uint32, n int) {
	for i := range n {
		w.bit(v >> i)
	}
}

func (w *bitWriter) code(c uint32, n int) {
	for i := n - 1; i >= 0; i-- {
		w.bit(c >> i)
	}
}

// fixedLiteral writes literal 'a'..'p' (symbols 0-143 have the 8-bit
// fixed codes 0x30+sym).
func (w *bitWriter) fixedLiteral(i int) {
	w.code(0x30+uint32('a'+i%16), 8)
}

// TestFastLoopBadCodes: a bad code met where the fast loop decodes (many
// bytes of input and room left on both sides) fails as compress/flate
// fails, after the literals before it.
func TestFastLoopBadCodes(t *testing.T) {
	for _, tc := range []struct {
		name string
		bad  func(w *bitWriter)
		want error
	}{
		// Symbol 286 (fixed code 11000110) is not a DEFLATE symbol.
		{"litlen 286", func(w *bitWriter) { w.code(0xc6, 8) }, errBadLitlen},
		// Length 3 (symbol 257, code 0000001), then distance symbol 30
		// (5-bit code 11110), which fixed blocks do not define.
		{"distance 30", func(w *bitWriter) { w.code(1, 7); w.code(30, 5) }, errBadDist},
		// Length 3, then distance symbol 29 with zero extra bits: 24577
		// bytes back, before the 40 bytes decoded so far.
		{"distance too far", func(w *bitWriter) { w.code(1, 7); w.code(29, 5); w.field(0, 13) }, errFarDist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w bitWriter
			w.field(1, 1) // final block
			w.field(1, 2) // fixed Huffman codes
			for i := range 40 {
				w.fixedLiteral(i)
			}
			tc.bad(&w)
			for i := range 40 { // input enough for the fast loop past the bad code
				w.fixedLiteral(i)
			}
			if _, err := stdInflate(w.out, 1<<20); err == nil {
				t.Fatal("compress/flate accepts the stream")
			}
			got, err := decodeAll(w.out, 1<<20)
			if !errors.Is(err, ErrCorrupt) || err.Error() == "" || !bytes.Contains([]byte(err.Error()), []byte(tc.want.Error())) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			want := []byte("abcdefghijklmnopabcdefghijklmnopabcdefgh")
			if len(got) < len(want) || !bytes.Equal(got[:len(want)], want) {
				t.Fatalf("output before the bad code: %q, want %q", got, want)
			}
		})
	}
}

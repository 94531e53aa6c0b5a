package corefile

import (
	"bytes"
	"io"
	"testing"

	"github.com/pierrec/lz4/v4"
)

// lz4Seeds compresses a small core-like input (zero pages, text, a
// repeating pattern) as frames with every option lz4Stream reads.
func lz4Seeds(t testing.TB) [][]byte {
	var in []byte
	in = append(in, make([]byte, 4096)...)
	in = append(in, bytes.Repeat([]byte("coreunwind lz4 "), 300)...)
	for i := range 5000 {
		in = append(in, byte(i*7), byte(i>>3))
	}
	var seeds [][]byte
	for _, opts := range [][]lz4.Option{
		nil,
		{lz4.BlockSizeOption(lz4.Block64Kb), lz4.BlockChecksumOption(true), lz4.ChecksumOption(false)},
		{lz4.BlockSizeOption(lz4.Block64Kb), lz4.SizeOption(uint64(len(in)))},
		{lz4.LegacyOption(true)},
	} {
		var b bytes.Buffer
		w := lz4.NewWriter(&b)
		if err := w.Apply(opts...); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(in); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b.Bytes(), b.Bytes()[:b.Len()/2])
	}
	return seeds
}

// FuzzLZ4Stream: any input decodes without a panic and within bounds,
// and where lz4.Reader (which also checks the checksums) decodes a stream
// whole, lz4Stream gives the same bytes.
func FuzzLZ4Stream(f *testing.F) {
	for _, s := range lz4Seeds(f) {
		f.Add(s)
	}
	const limit = 64 << 20
	f.Fuzz(func(t *testing.T, data []byte) {
		got, gotErr := io.ReadAll(io.LimitReader(newLZ4Stream(bytes.NewReader(data)), limit))
		want, wantErr := io.ReadAll(io.LimitReader(lz4.NewReader(bytes.NewReader(data)), limit))
		if wantErr == nil && len(want) < limit && len(data) > 0 && (gotErr != nil || !bytes.Equal(got, want)) {
			t.Errorf("lz4.Reader decodes %d bytes; lz4Stream %d bytes, %v", len(want), len(got), gotErr)
		}
	})
}

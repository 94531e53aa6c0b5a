package inflate

import (
	"bytes"
	"compress/flate"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// FuzzDecode checks the decoder against compress/flate on arbitrary
// streams: both fail, or both give the same bytes; decoding in steps of
// step bytes gives the same as one call. Output is capped so that
// hostile streams stay fast.
func FuzzDecode(f *testing.F) {
	for _, level := range []int{flate.HuffmanOnly, 0, 1, 6, 9} {
		data := bytes.Repeat([]byte("DW_AT_name\x00malloc\x00\x01\x02\x03abcabcabcabcabc"), 40)
		f.Add(compress(f, data, level, 300), uint16(17))
	}
	f.Add([]byte{0x03, 0x02, 0x00}, uint16(1)) // match before the start
	f.Add([]byte{0x01, 0x05, 0x00, 0xfa, 0xff, 'a', 'b', 'c', 'd', 'e'}, uint16(2))
	const limit = 1 << 20
	f.Fuzz(func(t *testing.T, src []byte, step uint16) {
		// A hang must become a reported crasher, not a stalled fuzzer.
		watchdog := time.AfterFunc(10*time.Second, func() {
			buf := make([]byte, 1<<20)
			panic(fmt.Sprintf("hang on %q step %d:\n%s", src, step, buf[:runtime.Stack(buf, true)]))
		})
		defer watchdog.Stop()
		want, wantErr := stdInflate(src, limit)
		got, err := decodeAll(src, limit)
		if len(want) == limit && len(got) == limit {
			wantErr, err = nil, nil // both cut short: compare what came
		}
		if (err != nil) != (wantErr != nil) || err == nil && !bytes.Equal(got, want) {
			t.Fatalf("one call: %d bytes, err %v; compress/flate: %d bytes, err %v", len(got), err, len(want), wantErr)
		}
		steps, serr := decodeSliding(src, limit, func() int { return int(step) + 1 })
		// After an error the last few bytes may come from the zeros the
		// bit buffer reads past the end, more or fewer by where the steps
		// cut: compare output only of good streams.
		if (serr != nil) != (err != nil) || serr == nil && !bytes.Equal(got, steps) {
			t.Fatalf("in steps of %d: %d bytes, err %v; one call: %d bytes, err %v", step+1, len(steps), serr, len(got), err)
		}
	})
}

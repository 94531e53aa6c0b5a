package inflate

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"testing"
)

// decodeAll inflates src in one call into a buffer of limit bytes.
func decodeAll(src []byte, limit int) ([]byte, error) {
	var d Decoder
	d.Reset(src)
	dst := make([]byte, limit)
	n, err := d.Decode(dst, 0)
	if err == io.EOF || err == nil && n == limit {
		err = nil
	}
	return dst[:n], err
}

// decodeSliding inflates src the way elfx inflates ranges nobody keeps:
// into a buffer of 32 KiB of history and step bytes of room, sliding the
// last 32 KiB to its front when full. Steps cut matches and stored
// blocks anywhere.
func decodeSliding(src []byte, limit int, step func() int) ([]byte, error) {
	const window = 32 << 10
	var d Decoder
	d.Reset(src)
	var out []byte
	buf := make([]byte, 0, window+1<<16)
	for len(out) < limit {
		if len(buf) == cap(buf) {
			buf = buf[:copy(buf, buf[len(buf)-window:])]
		}
		end := min(cap(buf), len(buf)+step(), len(buf)+limit-len(out))
		n, err := d.Decode(buf[:end], len(buf))
		out = append(out, buf[len(buf):len(buf)+n]...)
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, err
		}
		if n == 0 && end > len(buf) {
			return out, errors.New("no progress with room left")
		}
	}
	return out, nil
}

// stdInflate is the oracle: compress/flate on the same stream.
func stdInflate(src []byte, limit int) ([]byte, error) {
	out, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(src)), int64(limit)))
	return out, err
}

// testInputs are data of the kinds debug sections and binaries hold:
// text, runs, random bytes (stored blocks), and this test's own binary.
func testInputs(t testing.TB) map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 200<<10)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	var text bytes.Buffer
	words := []string{"DW_TAG_subprogram", "DW_AT_name", "malloc", "pthread_create", "\x00", "\x01\x02", "glibc", " ", "\n"}
	for text.Len() < 300<<10 {
		text.WriteString(words[rng.IntN(len(words))])
		if rng.IntN(50) == 0 {
			text.Write(random[:rng.IntN(300)])
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		"empty":   nil,
		"byte":    {'x'},
		"zeros":   make([]byte, 100<<10),
		"abab":    bytes.Repeat([]byte("ab"), 40<<10),
		"period7": bytes.Repeat([]byte("0123456"), 10<<10),
		"random":  random,
		"text":    text.Bytes(),
		"self":    self[:min(len(self), 3<<20)],
	}
}

// compress deflates data at level, flushing now and then so that the
// stream also holds empty stored blocks and block boundaries mid-data.
func compress(t testing.TB, data []byte, level int, flushEvery int) []byte {
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, level)
	if err != nil {
		t.Fatal(err)
	}
	for len(data) > 0 {
		n := min(len(data), flushEvery)
		w.Write(data[:n])
		data = data[n:]
		if len(data) > 0 {
			w.Flush()
		}
	}
	w.Close()
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	for name, data := range testInputs(t) {
		for _, level := range []int{flate.HuffmanOnly, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9} {
			for _, flush := range []int{1 << 30, 7777} {
				t.Run(fmt.Sprintf("%s/level%d/flush%d", name, level, flush), func(t *testing.T) {
					z := compress(t, data, level, flush)
					got, err := decodeAll(z, len(data)+1)
					if err != nil || !bytes.Equal(got, data) {
						t.Fatalf("one call: %d of %d bytes, err %v", len(got), len(data), err)
					}
					rng := rand.New(rand.NewPCG(uint64(level), uint64(len(data))))
					got, err = decodeSliding(z, len(data)+1, func() int { return 1 + rng.IntN(700) })
					if err != nil || !bytes.Equal(got, data) {
						t.Fatalf("in steps: %d of %d bytes, err %v", len(got), len(data), err)
					}
				})
			}
		}
	}
}

// TestOutputFull: a stream whose output exactly fills dst reports io.EOF
// in the same call, and a full dst mid-stream reports nil.
func TestOutputFull(t *testing.T) {
	data := bytes.Repeat([]byte("hello, inflate "), 1000)
	z := compress(t, data, 6, 1<<30)
	var d Decoder
	d.Reset(z)
	dst := make([]byte, len(data))
	if n, err := d.Decode(dst[:100], 0); n != 100 || err != nil {
		t.Fatalf("first 100 bytes: n=%d err=%v", n, err)
	}
	if n, err := d.Decode(dst, 100); n != len(data)-100 || err != io.EOF {
		t.Fatalf("rest: n=%d err=%v", n, err)
	}
	if !bytes.Equal(dst, data) {
		t.Fatal("output differs")
	}
	if d.Consumed() != len(z) {
		t.Errorf("consumed %d of %d input bytes", d.Consumed(), len(z))
	}
}

// TestBadStreams: hostile streams give errors, like compress/flate's.
func TestBadStreams(t *testing.T) {
	good := compress(t, bytes.Repeat([]byte("abcdefgh"), 5000), 6, 1<<30)
	for name, src := range map[string][]byte{
		"block type 3":        {0x07},
		"stored length check": {0x01, 0x05, 0x00, 0x00, 0x00},
		"stored truncated":    {0x01, 0x05, 0x00, 0xfa, 0xff, 'a', 'b'},
		"empty input":         {},
		"truncated":           good[:len(good)/2],
		"last byte missing":   good[:len(good)-1],
		// Final fixed block (bits 1,1,0), then length code 257 (0000001)
		// and distance code 0: a match at output 0.
		"distance before data": {0x03, 0x02, 0x00},
		// Final fixed block, then code 11000110 (symbol 286, undefined).
		"fixed litlen 286": {0x1b, 0x03},
	} {
		t.Run(name, func(t *testing.T) {
			_, want := stdInflate(src, 1<<20)
			_, err := decodeAll(src, 1<<20)
			if err == nil || want == nil {
				t.Fatalf("err %v, compress/flate's %v: both must fail", err, want)
			}
		})
	}
}

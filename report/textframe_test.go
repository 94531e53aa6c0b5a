package report

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"testing"
)

// frameLineByFmt is a frame line as fmt writes it: the format writeFrame
// reproduces without fmt.
func frameLineByFmt(f *Frame, width int) string {
	if f.Signal {
		return fmt.Sprintf("#%-2d <signal handler called>\n", f.Index)
	}
	s := fmt.Sprintf("#%-2d 0x%0*x in ", f.Index, width, uint64(f.PC))
	if f.Function != nil {
		s += *f.Function
	} else {
		s += "??"
	}
	s += " ()"
	switch {
	case f.File != nil && f.Line != nil:
		s += fmt.Sprintf(" at %s:%d", *f.File, *f.Line)
	case f.Module != nil:
		s += fmt.Sprintf(" from %s", *f.Module)
	}
	if f.Inlined {
		s += " [inlined]"
	}
	switch f.Trust {
	case "frame_pointer":
		s += " [frame pointer]"
	case "scan":
		s += " [stack scan]"
	case "tail_call":
		s += " [tail call]"
	}
	return s + "\n"
}

func TestWriteFrameMatchesFmt(t *testing.T) {
	long := string(bytes.Repeat([]byte("n"), 3*frameLineRoom)) // longer than the room asked for
	frames := []Frame{
		{Index: 0, PC: 0x401000, Trust: "context", Module: Ptr("/bin/x")},
		{Index: 7, PC: 0, Trust: "cfi", Function: Ptr("main"), File: Ptr("/tmp/a.c"), Line: Ptr(12)},
		{Index: 10, PC: math.MaxUint64, Trust: "frame_pointer", Function: Ptr("f"), Inlined: true},
		{Index: 12345, PC: 0x7fff12345678, Trust: "scan", Module: Ptr(long), Function: Ptr(long)},
		{Index: 3, Signal: true},
		{Index: 4, PC: 0x10, File: Ptr("no line"), Module: Ptr("m")},
		{Index: 9, PC: 0x401185, Trust: TrustTailCall, Function: Ptr("buf_free"), File: Ptr("/tmp/dfree.c"), Line: Ptr(5)},
	}
	for _, width := range []int{8, 16} {
		var got bytes.Buffer
		w := bufio.NewWriterSize(&got, 600) // small: lines cross the buffer's end
		want := ""
		for range 20 {
			for i := range frames {
				writeFrame(w, &frames[i], width)
				want += frameLineByFmt(&frames[i], width)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want {
			t.Errorf("width %d: writeFrame differs from fmt:\n got %q\nwant %q", width, got.String(), want)
		}
	}
}

func TestAppendHexMatchesFmt(t *testing.T) {
	for _, v := range []uint64{0, 1, 0xf, 0x10, 0xdeadbeef, 1 << 63, math.MaxUint64} {
		for _, width := range []int{0, 1, 8, 16, 20} {
			if got, want := string(appendHex([]byte("x"), v, width)), fmt.Sprintf("x%0*x", width, v); got != want {
				t.Errorf("appendHex(%#x, %d) = %q, want %q", v, width, got, want)
			}
		}
	}
}

// TestTailCallMarker: a frame rebuilt from call-site records says so, as
// an inlined call does.
func TestTailCallMarker(t *testing.T) {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	writeFrame(w, &Frame{Index: 8, PC: 0x401185, Trust: TrustTailCall, Function: Ptr("buf_free"), File: Ptr("/tmp/dfree.c"), Line: Ptr(5)}, 16)
	w.Flush()
	if want := "#8  0x0000000000401185 in buf_free () at /tmp/dfree.c:5 [tail call]\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

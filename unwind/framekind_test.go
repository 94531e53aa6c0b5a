package unwind

import "testing"

// kindsAt classifies by the frame's lookup address: [lo, lo+0x100) is
// kinds[lo].
func kindsAt(kinds map[uint64]FrameKind) Classifier {
	return func(pc uint64, exact bool) FrameKind {
		return kinds[pc&^0xff]
	}
}

// walkKinds walks a's chain from (0x100, 0x1000) with classify and
// returns each frame's pc and ExactPC, and the walk's error.
func walkKinds(t *testing.T, a *chainArch, classify Classifier) (pcs []uint64, exact []bool, err error) {
	t.Helper()
	c, err := NewCursor(nullSpace{}, a, start(0x100, 0x1000), Options{Classify: classify})
	if err != nil {
		t.Fatal(err)
	}
	for {
		pcs = append(pcs, c.PC())
		exact = append(exact, c.Frame().ExactPC)
		more, err := c.Step()
		if !more {
			return pcs, exact, err
		}
	}
}

func TestCursorInjectedCallMakesCallerExact(t *testing.T) {
	// 0x100 (frame 0) <- 0x210 (in the injected function) <- 0x300
	// (the faulting instruction) <- 0x410.
	a := &chainArch{next: map[[2]uint64][2]uint64{
		{0x100, 0x1000}: {0x210, 0x1010},
		{0x210, 0x1010}: {0x300, 0x1020},
		{0x300, 0x1020}: {0x410, 0x1030},
	}}
	_, exact, err := walkKinds(t, a, kindsAt(map[uint64]FrameKind{0x200: FrameInjectedCall}))
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{true, false, true, false}
	for i := range want {
		if i >= len(exact) || exact[i] != want[i] {
			t.Fatalf("ExactPC by frame = %v, want %v", exact, want)
		}
	}
}

func TestCursorStopsAtOutermostFrame(t *testing.T) {
	a := &chainArch{next: map[[2]uint64][2]uint64{
		{0x100, 0x1000}: {0x210, 0x1010},
		{0x210, 0x1010}: {0x310, 0x1020}, // past the outermost frame: not a frame
	}}
	pcs, _, err := walkKinds(t, a, kindsAt(map[uint64]FrameKind{0x200: FrameOutermost}))
	if err != nil || len(pcs) != 2 {
		t.Fatalf("pcs %#x err %v; want 2 frames and no error", pcs, err)
	}
}

func TestCursorThreadEntryEndsWalkNormally(t *testing.T) {
	// A step from the thread's entry function that cannot go on (the
	// frame does not move) ends the walk without an error; from any
	// other frame it is one.
	a := &chainArch{next: map[[2]uint64][2]uint64{
		{0x100, 0x1000}: {0x210, 0x1010},
		{0x210, 0x1010}: {0x210, 0x1010},
	}}
	pcs, _, err := walkKinds(t, a, kindsAt(map[uint64]FrameKind{0x200: FrameThreadEntry}))
	if err != nil || len(pcs) != 2 {
		t.Fatalf("pcs %#x err %v; want 2 frames and no error", pcs, err)
	}
	if _, _, err := walkKinds(t, a, nil); err == nil {
		t.Fatalf("without a classifier the walk ends without an error")
	}
}

// codeSpace has code below 0x1000 only.
type codeSpace struct{ nullSpace }

func (codeSpace) IsCode(addr uint64) bool { return addr < 0x1000 }

func TestCursorThreadEntryCallerNotCode(t *testing.T) {
	// A thread just born in its entry function: what the unwind info
	// finds above it is the new stack's garbage, no code. With a caller
	// in code, the walk goes on.
	for _, tc := range []struct {
		caller uint64
		frames int
	}{{0x7f0000002000, 1}, {0x300, 2}} {
		a := &chainArch{next: map[[2]uint64][2]uint64{{0x100, 0x1000}: {tc.caller, 0x1010}}}
		c, err := NewCursor(codeSpace{}, a, start(0x100, 0x1000), Options{Classify: kindsAt(map[uint64]FrameKind{0x100: FrameThreadEntry})})
		if err != nil {
			t.Fatal(err)
		}
		n := 1
		for {
			more, err := c.Step()
			if err != nil {
				t.Fatalf("caller %#x: %v", tc.caller, err)
			}
			if !more {
				break
			}
			n++
		}
		if n != tc.frames {
			t.Errorf("caller %#x: %d frames, want %d", tc.caller, n, tc.frames)
		}
	}
}

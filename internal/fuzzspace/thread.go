package fuzzspace

import (
	"testing"

	"github.com/coreunwind/coreunwind/unwind"
)

// FrameFromThread is the body of the arch packages' FrameFromThread fuzz
// targets: register notes of any size and content (th, from the fuzzer)
// give frame 0 or an error, never a panic, and a frame 0 has a pc.
func FrameFromThread(t *testing.T, arch unwind.Arch, th *unwind.ThreadState) {
	t.Helper()
	fr, err := arch.FrameFromThread(th)
	if err != nil {
		return
	}
	if _, ok := fr.Get(arch.PCReg()); !ok {
		t.Fatal("frame 0 without a pc")
	}
}

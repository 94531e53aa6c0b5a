package ia64

import (
	"debug/elf"
	"errors"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/unwind"
)

// withoutFrameExtra hides Arch's FrameIdentifier: the cursor then knows
// frames by (pc, sp) alone.
type withoutFrameExtra struct{ unwind.Arch }

// TestStackedRecursionIsNotACycle: srec in stackrec.s recurses six deep
// with its locals in stacked registers and no memory frame, so all six
// frames share pc and sp. The walk recovers every one of them, with the
// interpreter's bsp each; told frames apart by (pc, sp) alone the cursor
// would take the second for one that did not move (or a cycle), which is what the bsp identity
// prevents.
func TestStackedRecursionIsNotACycle(t *testing.T) {
	m, exe, dir := runProgram(t, "stackrec", false)
	core := filepath.Join(dir, "core")
	if err := m.WriteLinuxCore(core, exe, 4242, 11); err != nil {
		t.Fatal(err)
	}
	want := interpreterChain(m)
	got := walkCore(t, core, exe)
	compareChains(t, "stackrec", got, want)

	srec := 0
	for i := 1; i < len(want); i++ {
		if want[i].ip == want[1].ip {
			srec++
			if want[i].sp != want[1].sp {
				t.Fatalf("srec frame %d: sp %#x moved from %#x: the test lost its point", i, want[i].sp, want[1].sp)
			}
		}
	}
	if srec < 3 {
		t.Fatalf("%d recursive frames with one (pc, sp): want several", srec)
	}

	c, err := corefile.Open(core, corefile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ef, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	as := coreSpace(c, ef)
	cur := threadCursor(t, withoutFrameExtra{Arch{}}, as, c, unwind.Options{})
	n := 1
	for {
		more, err := cur.Step()
		if !more {
			if !errors.Is(err, unwind.ErrCycle) && !errors.Is(err, unwind.ErrNoProgress) {
				t.Errorf("without bsp identity: %d frames, err %v; want a false cycle or no progress", n, err)
			}
			break
		}
		n++
	}
	if n >= len(want) {
		t.Errorf("without bsp identity the walk still found %d frames: bsp is not what separates them", n)
	}
}

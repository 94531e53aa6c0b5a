package pylayout_test

import (
	"fmt"

	"github.com/coreunwind/coreunwind/pyruntime/pylayout"
)

// A reader holding Py_Version (0x030b07f0 in a 3.11.7 core) and knowing
// the build from the interpreter's symbols finds how to get from a thread
// state to the frame it runs.
func ExampleLookup() {
	l, err := pylayout.Lookup(pylayout.VersionFromHex(0x030b07f0), pylayout.Release)
	if err != nil {
		fmt.Println(err)
		return
	}
	switch {
	case l.Thread.CurrentFrame.Present():
		fmt.Println("tstate->current_frame at", l.Thread.CurrentFrame)
	case l.Thread.CFrame.Present():
		fmt.Println("tstate->cframe at", l.Thread.CFrame, "then ->current_frame at", l.CFrame.CurrentFrame)
	default:
		fmt.Println("tstate->frame at", l.Thread.Frame)
	}
	fmt.Println("frame->f_code at", l.Frame.Code, "->previous at", l.Frame.Previous, "->prev_instr at", l.Frame.PrevInstr)
	// Output:
	// tstate->cframe at 56 then ->current_frame at 8
	// frame->f_code at 32 ->previous at 48 ->prev_instr at 56
}

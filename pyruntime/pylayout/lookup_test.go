package pylayout

import (
	"errors"
	"testing"
)

// TestLookupUnknown: a version the table lacks is an error that says so,
// not a zero Layout whose offsets all read as 0.
func TestLookupUnknown(t *testing.T) {
	for _, tc := range []struct {
		v Version
		b Build
	}{{Version{3, 99}, Release}, {Version{2, 7}, Release}, {Version{3, 11}, FreeThreaded}} {
		if _, err := Lookup(tc.v, tc.b); !errors.Is(err, ErrUnknownVersion) {
			t.Errorf("Lookup(%s, %s) error %v, want ErrUnknownVersion", tc.v, tc.b, err)
		}
	}
}

// TestGeneratedTableCoversReader: the table has every version the issue
// asks for (3.8-3.13, release and debug, and 3.13t), and each layout has
// the members a reader of that version follows, through exactly one way
// to the current frame.
func TestGeneratedTableCoversReader(t *testing.T) {
	for minor := 8; minor <= 13; minor++ {
		for _, b := range []Build{Release, Debug} {
			if _, err := Lookup(Version{3, minor}, b); err != nil {
				t.Error(err)
			}
		}
	}
	if _, err := Lookup(Version{3, 13}, FreeThreaded); err != nil {
		t.Error(err)
	}
	for _, l := range Known() {
		name := l.Version.String() + " " + l.Build.String()
		need := func(what string, o Offset) {
			if !o.Present() {
				t.Errorf("%s: no %s", name, what)
			}
		}
		ways := 0
		for _, o := range []Offset{l.Thread.Frame, l.Thread.CFrame, l.Thread.CurrentFrame} {
			if o.Present() {
				ways++
			}
		}
		if ways != 1 {
			t.Errorf("%s: %d ways from a thread state to its frame, want 1", name, ways)
		}
		need("Thread.Next", l.Thread.Next)
		need("Thread.ThreadID", l.Thread.ThreadID)
		need("Code.Name", l.Code.Name)
		need("Code.Filename", l.Code.Filename)
		need("Code.FirstLineno", l.Code.FirstLineno)
		need("Object.Type", l.Object.Type)
		need("Type.Name", l.Type.Name)
		need("Unicode.State", l.Unicode.State)
		if l.Unicode.KindMask == 0 || l.Unicode.CompactMask == 0 || l.Unicode.ASCIIMask == 0 {
			t.Errorf("%s: unicode state masks %+v", name, l.Unicode)
		}
		if l.Version.AtLeast(3, 7) {
			need("Runtime.InterpretersHead", l.Runtime.InterpretersHead)
			need("Interp.ThreadsHead", l.Interp.ThreadsHead)
			need("GIL.LastHolder", l.GIL.LastHolder)
			if l.Runtime.GIL.Present() == l.Interp.GIL.Present() {
				t.Errorf("%s: GIL in the runtime %v and in the interpreter %v", name, l.Runtime.GIL, l.Interp.GIL)
			}
		}
		if l.Version.AtLeast(3, 11) {
			need("Frame.Code", l.Frame.Code)
			need("Frame.Previous", l.Frame.Previous)
			need("Frame.Owner", l.Frame.Owner)
			need("Code.CodeAdaptive", l.Code.CodeAdaptive)
			need("Code.Qualname", l.Code.Qualname)
			need("Code.Linetable", l.Code.Linetable)
			if l.Frame.PrevInstr.Present() == l.Frame.InstrPtr.Present() {
				t.Errorf("%s: prev_instr %v, instr_ptr %v: want exactly one", name, l.Frame.PrevInstr, l.Frame.InstrPtr)
			}
			if l.Frame.IsEntry.Present() == (l.Frame.OwnerCStack >= 0) {
				t.Errorf("%s: is_entry %v, FRAME_OWNED_BY_CSTACK %d: want exactly one", name, l.Frame.IsEntry, l.Frame.OwnerCStack)
			}
		} else {
			need("FrameObject.Back", l.FrameObject.Back)
			need("FrameObject.Code", l.FrameObject.Code)
			need("FrameObject.Lasti", l.FrameObject.Lasti)
			need("Code.CodeBytes", l.Code.CodeBytes)
			if l.Code.Lnotab.Present() == l.Code.Linetable.Present() {
				t.Errorf("%s: co_lnotab %v, co_linetable %v: want exactly one", name, l.Code.Lnotab, l.Code.Linetable)
			}
		}
		if l.Build&Debug != 0 && !l.Version.AtLeast(3, 8) && l.Object.Type == 8 {
			t.Errorf("%s: a Py_TRACE_REFS object header should be two pointers longer", name)
		}
	}
}

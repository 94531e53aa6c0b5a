package analyze

import (
	"slices"
	"testing"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/unwind"
)

// TestGoFuncsOncePerObject: the Go runtime functions a walk treats
// specially (goFrames) are looked up by name once per executable in a
// batch (one elfx.Cache): a later core's module gets the ranges the
// first core's found, not a new lookup of each name (a twentieth of a
// warm batch of Go cores).
func TestGoFuncsOncePerObject(t *testing.T) {
	dir, exe := buildGo(t, "", goPanicProg)
	cores := crashTimes(t, dir, exe, 2, []string{"GOTRACEBACK=crash"})
	objs := elfx.NewCache()
	defer objs.Close()
	var found [][]goFuncRange
	for _, core := range cores {
		s, err := Open(core, Options{Executable: exe, Objects: objs})
		if err != nil {
			t.Fatal(err)
		}
		m := s.target.mainModule()
		found = append(found, m.goFuncs.find(m.obj()))
		s.Close()
	}
	first, later := found[0], found[1]
	if !slices.ContainsFunc(first, func(r goFuncRange) bool { return r.kind != 0 }) {
		t.Fatalf("first core: no runtime function found: %+v", first)
	}
	if !slices.Equal(first, later) {
		t.Errorf("later core's ranges %+v, first core's %+v", later, first)
	}
	if &later[0] != &first[0] {
		t.Error("the later core looked the functions up again")
	}
}

// TestMorestackEndsTheSystemStack: a thread caught in newstack (a
// goroutine preempted in its prologue's morestack: newstack ->
// gopreempt_m -> schedule -> stopm) has morestack as its outermost frame
// on the system stack, not a frame whose unwind info, describing the
// goroutine's stack, leaves the walk where it was (exit 3, "frame did
// not move": TestGoCallbackCallersAArch64 once in CI).
func TestMorestackEndsTheSystemStack(t *testing.T) {
	dir, exe := buildGo(t, "", goPanicProg)
	core := crashTimes(t, dir, exe, 1, []string{"GOTRACEBACK=crash"})[0]
	s, err := Open(core, Options{Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := s.target.mainModule()
	sym, ok := m.obj().LookupRawSymbol("runtime.morestack.abi0")
	if !ok || sym.Size < 8 {
		t.Fatalf("runtime.morestack.abi0: %+v, %v", sym, ok)
	}
	// newstack's return address, inside morestack.
	ret := sym.Addr + sym.Size - 4 + m.bias
	if k := s.target.classifyFrame(ret, false); k != unwind.FrameOutermost {
		t.Errorf("a return address in runtime.morestack is a frame of kind %v, want the system stack's outermost", k)
	}
}

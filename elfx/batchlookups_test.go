package elfx

import (
	"reflect"
	"testing"
)

// TestBatchKeepsLookups: the objects of a batch's cache look each
// address up once, without a symbol cache file (triage --no-cache): once
// the object is indexed, a second lookup at an address allocates
// nothing, where the first one did, and answers the same. Each core of
// a batch symbolized its frames anew before.
func TestBatchKeepsLookups(t *testing.T) {
	prog := compile(t, t.TempDir(), "gcc", "prog", "c", "static int leaf(int x) { return x * 3; }\nint main(int argc, char **argv) { return leaf(argc); }\n", "-g", "-O0")
	c := NewCache()
	defer c.Close()
	c.SetBatch(true)
	o, err := c.Open(prog, nil)
	if err != nil {
		t.Fatal(err)
	}
	main, ok := o.LookupSymbol("main")
	if !ok {
		t.Fatal("no main")
	}
	addr := main.Addr + 4
	// The index and the unit's lines are read by a first lookup
	// elsewhere: what follows is the lookup alone.
	if fs, err := o.SourceFrames(main.Addr); err != nil || len(fs) == 0 {
		t.Fatalf("at main: %v %v", fs, err)
	}
	o.Symbol(main.Addr)
	var first, second []SourceFrame
	var sym1, sym2 Symbol
	firstAllocs := mallocs(func() {
		first, _ = o.SourceFrames(addr)
		sym1, _ = o.Symbol(addr)
	})
	secondAllocs := mallocs(func() {
		second, _ = o.SourceFrames(addr)
		sym2, _ = o.Symbol(addr)
	})
	t.Logf("%+v %s: %d objects, then %d", first, sym1.Name, firstAllocs, secondAllocs)
	if len(first) == 0 || first[len(first)-1].Function != "main" || sym1.Name != "main" {
		t.Errorf("at main+4: frames %+v, symbol %q", first, sym1.Name)
	}
	if !reflect.DeepEqual(first, second) || sym1 != sym2 {
		t.Errorf("second lookup %+v %+v, first %+v %+v", second, sym2, first, sym1)
	}
	if firstAllocs == 0 || secondAllocs > 0 {
		t.Errorf("the second lookup allocated %d objects, the first %d: the address was symbolized again", secondAllocs, firstAllocs)
	}
}

// TestBatchLookupsBounded: a batch's in-memory lookups stop growing at
// maxKeptLookups an object, whatever the cores ask: a batch of endless
// distinct addresses must not hold every answer.
func TestBatchLookupsBounded(t *testing.T) {
	prog := compile(t, t.TempDir(), "gcc", "prog", "c", "int main(void) { return 0; }\n", "-g", "-O0")
	c := NewCache()
	defer c.Close()
	c.SetBatch(true)
	o, err := c.Open(prog, nil)
	if err != nil {
		t.Fatal(err)
	}
	for a := range uint64(maxKeptLookups + 100) {
		o.SourceFrames(a)
		o.Symbol(a)
	}
	m := o.state().memo.Load()
	if m == nil {
		t.Fatal("a batch's object keeps no lookups")
	}
	if n, s := len(m.l.frames), len(m.l.syms); n > maxKeptLookups || s > maxKeptLookups {
		t.Errorf("kept %d source and %d symbol lookups, more than %d", n, s, maxKeptLookups)
	}
}

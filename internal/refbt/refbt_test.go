package refbt

import "testing"

// The parsers must catch what they claim to catch, or every comparison
// with a reference tool is void.

func TestParseReferences(t *testing.T) {
	g := ParseGDB(SampleGDB)
	if len(g) != 2 || len(g[6437].Frames) != 4 || len(g[6436].Frames) != 5 {
		t.Fatalf("gdb parse: %+v", g)
	}
	if f := g[6437].Frames[1]; f.PC != 0x55733f18917a || f.Func != "worker" || f.File != "a.c" || f.Line != 4 {
		t.Errorf("gdb frame: %+v", f)
	}
	if f := g[6436].Frames[2]; f.HasPC || f.Func != "" {
		t.Errorf("signal frame: %+v", f)
	}
	if f := g[6436].Frames[3]; f.Func != "std::terminate()" {
		t.Errorf("C++ name without debug info: %q", f.Func)
	}
	if f := g[6436].Frames[2]; !f.Signal {
		t.Errorf("signal frame not marked: %+v", f)
	}
	e := ParseEuStack(SampleEuStack)
	if len(e) != 2 || len(e[6436].Frames) != 4 || len(e[6437].Frames) != 2 {
		t.Fatalf("eu-stack parse: %+v", e)
	}
	if f := e[6436].Frames[1]; f.PC != 0x55733f1891a9 || f.Func != "b" || f.Line != 6 {
		t.Errorf("eu-stack frame: %+v", f)
	}
}

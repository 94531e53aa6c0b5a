package e2e

import (
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/refbt"
)

// Tests of the suite's own machinery: the parsers and the comparison rule
// must catch what they claim to catch, or every end-to-end verdict is void.

func TestNormalizeFunc(t *testing.T) {
	for in, want := range map[string]string{
		"shop::process(shop::Basket&, int)":      "shop::process",
		"std::terminate()":                       "std::terminate",
		"__libc_start_main@@GLIBC_2.34":          "__libc_start_main",
		"puts@plt":                               "puts",
		"rustcrash::main::h0123456789abcdef":     "rustcrash::main",
		"store_through.isra.0":                   "store_through",
		"__GI_raise":                             "raise",
		"geo::Point<int>::operator()(int) const": "geo::Point<int>::operator()",
		"(anonymous namespace)::f(int)":          "(anonymous namespace)::f",
		"??":                                     "",
		"main":                                   "main",
	} {
		if got := normalizeFunc(in); got != want {
			t.Errorf("normalizeFunc(%q) = %q, want %q", in, got, want)
		}
	}
}

func frames(pcs ...uint64) []refbt.Frame {
	var out []refbt.Frame
	for i, pc := range pcs {
		out = append(out, refbt.Frame{Index: i, PC: pc, HasPC: true, Func: "f" + strings.Repeat("x", int(pc%7))})
	}
	return out
}

func cuFrames(pcs ...uint64) *reportThread {
	th := &reportThread{TID: 1}
	for i, pc := range pcs {
		th.Frames = append(th.Frames, reportFrame{Index: i, PC: "0x" + strings.ToLower(hexU(pc)), Function: "f" + strings.Repeat("x", int(pc%7))})
	}
	return th
}

func hexU(v uint64) string {
	const d = "0123456789abcdef"
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v >>= 4 {
		b = append([]byte{d[v&15]}, b...)
	}
	return string(b)
}

func TestCompareThread(t *testing.T) {
	g := frames(10, 11, 12, 13, 14)
	e := frames(10, 12, 13, 14) // eu-stack lacks gdb's tail-call frame 11
	for _, tc := range []struct {
		name string
		cu   *reportThread
		ok   bool
	}{
		{"same as eu-stack", cuFrames(10, 12, 13, 14), true},
		{"same as gdb", cuFrames(10, 11, 12, 13, 14), true},
		{"wrong pc", cuFrames(10, 12, 99, 14), false},
		{"stops early", cuFrames(10, 12), false},
		{"extra frames beyond the gap", cuFrames(10, 50, 51, 12, 13, 14), false},
		{"missing thread", nil, false},
	} {
		msg := compareThread(1, g, e, tc.cu)
		if (msg == "") != tc.ok {
			t.Errorf("%s: ok=%v, message %q", tc.name, msg == "", msg)
		}
	}
	// Function names count where both tools agree.
	cu := cuFrames(10, 12, 13, 14)
	cu.Frames[2].Function = "other"
	if compareThread(1, g, e, cu) == "" {
		t.Errorf("a wrong function name where both tools agree was not caught")
	}
	// A trailing unnamed frame ("0x0 in ??") is not a frame to reach.
	g2 := append(frames(10, 12), refbt.Frame{PC: 0, HasPC: true})
	if msg := compareThread(1, g2, frames(10, 12), cuFrames(10, 12)); msg != "" {
		t.Errorf("trailing ?? frame demanded: %s", msg)
	}
}

func FuzzParseGDB(f *testing.F) {
	f.Add(refbt.SampleGDB)
	f.Fuzz(func(t *testing.T, s string) {
		for _, th := range refbt.ParseGDB(s) {
			alignReferences(th.Frames, th.Frames)
			for _, fr := range th.Frames {
				normalizeFunc(fr.Func)
			}
		}
	})
}

func FuzzParseEuStack(f *testing.F) {
	f.Add(refbt.SampleEuStack)
	f.Fuzz(func(t *testing.T, s string) {
		for _, th := range refbt.ParseEuStack(s) {
			compareThread(th.TID, th.Frames, th.Frames[:len(th.Frames)/2], cuFrames(1, 2))
		}
	})
}

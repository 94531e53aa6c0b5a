package e2e

import (
	"strings"
	"testing"
)

// Tests of the suite's own machinery: the parsers and the comparison rule
// must catch what they claim to catch, or every end-to-end verdict is void.

const gdbSample = `[New LWP 6437]
#0  0x000055733f189188 in c (p=0x0) at a.c:5
5	__attribute__((noinline)) void c(int *p){ *p = 1; }

Thread 2 (Thread 0x7f65b63736c0 (LWP 6437)):
#0  0x00007f65b644adf2 in __libc_pause () at ../sysdeps/unix/sysv/linux/pause.c:29
#1  0x000055733f18917a in worker (p=0x0) at a.c:4
#2  0x00007f65b64001f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442
#3  0x00007f65b64808ec in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81

Thread 1 (LWP 6436):
#0  0x000055733f189188 in c (p=0x0) at a.c:5
#1  0x000055733f1891a9 in b (p=0x0) at a.c:6
#2  <signal handler called>
#3  0x00007f8b84aa8e85 in std::terminate() () from /lib/x86_64-linux-gnu/libstdc++.so.6
#4  0x0000000000000000 in ?? ()
`

const euSample = `PID 6436 - core
TID 6436:
#0  0x000055733f189188     c
    /tmp/exp/a.c:5:46
#1  0x000055733f1891a9 - 1 b
    /tmp/exp/a.c:6:43
#2  0x00007f13e3c28050     __restore_rt
#3  0x00007f8b84aa8e85 - 1 std::terminate()
TID 6437:
#0  0x00007f65b644adf2     __libc_pause
    ../sysdeps/unix/sysv/linux/pause.c:29:10
#1  0x000055733f18917a - 1 worker
`

func TestParseReferences(t *testing.T) {
	g := parseGDB(gdbSample)
	if len(g) != 2 || len(g[6437].Frames) != 4 || len(g[6436].Frames) != 5 {
		t.Fatalf("gdb parse: %+v", g)
	}
	if f := g[6437].Frames[1]; f.PC != 0x55733f18917a || f.Func != "worker" || f.File != "a.c" || f.Line != 4 {
		t.Errorf("gdb frame: %+v", f)
	}
	if f := g[6436].Frames[2]; f.HasPC || f.Func != "" {
		t.Errorf("signal frame: %+v", f)
	}
	if f := g[6436].Frames[3]; normalizeFunc(f.Func) != "std::terminate" {
		t.Errorf("C++ name without debug info: %q", f.Func)
	}
	e := parseEuStack(euSample)
	if len(e) != 2 || len(e[6436].Frames) != 4 || len(e[6437].Frames) != 2 {
		t.Fatalf("eu-stack parse: %+v", e)
	}
	if f := e[6436].Frames[1]; f.PC != 0x55733f1891a9 || f.Func != "b" || f.Line != 6 {
		t.Errorf("eu-stack frame: %+v", f)
	}
}

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

func frames(pcs ...uint64) []refFrame {
	var out []refFrame
	for i, pc := range pcs {
		out = append(out, refFrame{Index: i, PC: pc, HasPC: true, Func: "f" + strings.Repeat("x", int(pc%7))})
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
	g2 := append(frames(10, 12), refFrame{PC: 0, HasPC: true})
	if msg := compareThread(1, g2, frames(10, 12), cuFrames(10, 12)); msg != "" {
		t.Errorf("trailing ?? frame demanded: %s", msg)
	}
}

func FuzzParseGDB(f *testing.F) {
	f.Add(gdbSample)
	f.Fuzz(func(t *testing.T, s string) {
		for _, th := range parseGDB(s) {
			alignReferences(th.Frames, th.Frames)
			for _, fr := range th.Frames {
				normalizeFunc(fr.Func)
			}
		}
	})
}

func FuzzParseEuStack(f *testing.F) {
	f.Add(euSample)
	f.Fuzz(func(t *testing.T, s string) {
		for _, th := range parseEuStack(s) {
			compareThread(th.TID, th.Frames, th.Frames[:len(th.Frames)/2], cuFrames(1, 2))
		}
	})
}

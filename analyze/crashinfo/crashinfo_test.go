package crashinfo

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/report"
)

// fakeMem is memory of one region at base, little-endian, 64-bit.
type fakeMem struct {
	base uint64
	b    []byte
}

func (m *fakeMem) ByteOrder() binary.ByteOrder { return binary.LittleEndian }
func (m *fakeMem) PtrSize() int                { return 8 }
func (m *fakeMem) ReadMem(addr uint64, p []byte) error {
	if addr < m.base || addr-m.base > uint64(len(m.b)) || uint64(len(p)) > uint64(len(m.b))-(addr-m.base) {
		return errors.New("unavailable")
	}
	copy(p, m.b[addr-m.base:])
	return nil
}

const memBase = 0x10000

// abortMem lays out __abort_msg at memBase pointing to a struct
// abort_msg_s at memBase+0x100 of the given size and text.
func abortMem(size uint32, text string) *fakeMem {
	b := make([]byte, 0x100+4+len(text)+1)
	binary.LittleEndian.PutUint64(b, memBase+0x100)
	binary.LittleEndian.PutUint32(b[0x100:], size)
	copy(b[0x104:], text)
	return &fakeMem{memBase, b}
}

func TestReadAbortMsg(t *testing.T) {
	msg := "free(): double free detected in tcache 2\n"
	for _, tc := range []struct {
		name string
		mem  *fakeMem
		want string
		ok   bool
		err  bool
	}{
		{"glibc's page-sized allocation", abortMem(4096, msg), "free(): double free detected in tcache 2", true, false},
		{"size exactly the text", abortMem(uint32(4+len(msg)+1), msg), "free(): double free detected in tcache 2", true, false},
		{"no message", &fakeMem{memBase, make([]byte, 8)}, "", false, false},
		{"empty", abortMem(4, ""), "", false, true},
		{"pointer to nowhere", &fakeMem{memBase, binary.LittleEndian.AppendUint64(nil, 0xdead0000)}, "", false, true},
		{"huge size, short memory", abortMem(0xffffffff, "abc"), "abc", true, false},
	} {
		got, ok, err := ReadAbortMsg(tc.mem, memBase)
		if got != tc.want || ok != tc.ok || (err != nil) != tc.err {
			t.Errorf("%s: %q %v %v, want %q %v error=%v", tc.name, got, ok, err, tc.want, tc.ok, tc.err)
		}
	}
	// No terminating NUL within the bound: cut at maxAbortMsg.
	long := strings.Repeat("x", 3*maxAbortMsg)
	if got, ok, _ := ReadAbortMsg(abortMem(uint32(len(long)+8), long), memBase); !ok || len(got) != maxAbortMsg {
		t.Errorf("long message: %d bytes, ok %v", len(got), ok)
	}
}

func FuzzReadAbortMsg(f *testing.F) {
	f.Add(abortMem(4096, "prog: a.c:1: f: Assertion `x' failed.\n").b)
	f.Add(abortMem(4, "").b)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		msg, ok, err := ReadAbortMsg(&fakeMem{memBase, b}, memBase)
		if len(msg) > maxAbortMsg || (ok && err != nil) {
			t.Fatalf("%d bytes, ok %v, err %v", len(msg), ok, err)
		}
	})
}

// typeInfoMem lays out a std::type_info at memBase (vtable, name
// pointer) whose name is at memBase+0x20.
func typeInfoMem(name string) *fakeMem {
	b := make([]byte, 0x20+len(name)+1)
	binary.LittleEndian.PutUint64(b[8:], memBase+0x20)
	copy(b[0x20:], name)
	return &fakeMem{memBase, b}
}

func TestReadTypeInfoName(t *testing.T) {
	for name, want := range map[string]string{
		"St13runtime_error":       "std::runtime_error",
		"N4shop10OutOfStockE":     "shop::OutOfStock",
		"*N12_GLOBAL__N_15LocalE": "(anonymous namespace)::Local",
		"i":                       "int",
	} {
		got, err := ReadTypeInfoName(typeInfoMem(name), memBase)
		if err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", name, got, err, want)
		}
	}
	if _, err := ReadTypeInfoName(typeInfoMem(""), memBase); err == nil {
		t.Error("empty name accepted")
	}
}

func FuzzReadTypeInfoName(f *testing.F) {
	f.Add(typeInfoMem("St13runtime_error").b)
	f.Add(typeInfoMem("*N12_GLOBAL__N_15LocalE").b)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		name, err := ReadTypeInfoName(&fakeMem{memBase, b}, memBase)
		if err == nil && name == "" {
			t.Fatal("empty name without an error")
		}
	})
}

func framesOf(names ...string) []report.Frame {
	out := make([]report.Frame, len(names))
	for i, n := range names {
		if n != "" {
			out[i].Function = report.Ptr(n)
		}
	}
	return out
}

func repeat(n int, names ...string) []string {
	var out []string
	for range n {
		out = append(out, names...)
	}
	return out
}

func TestRecursionCycle(t *testing.T) {
	for _, tc := range []struct {
		name    string
		frames  []string
		want    string
		repeats int
	}{
		{"self", repeat(100, "recurse"), "recurse", 100},
		{"two functions, overflowing in the second", append([]string{"down_b"}, repeat(50, "down_a", "down_b")...), "down_a -> down_b -> down_a", 50},
		{"libc call at the top", append([]string{"memset", "fill"}, repeat(20, "walk", "visit", "fill")...), "fill -> walk -> visit -> fill", 20},
		{"unnamed frames break it", append(repeat(3, "a"), repeat(3, "", "b")...), "", 0},
		{"too few turns", append(repeat(3, "a", "b"), "main"), "", 0},
		{"no repetition", []string{"a", "b", "c", "main"}, "", 0},
	} {
		c := RecursionCycle(framesOf(tc.frames...))
		switch {
		case c == nil && tc.want != "":
			t.Errorf("%s: no cycle, want %s", tc.name, tc.want)
		case c != nil && (c.String() != tc.want || c.Repeats < tc.repeats):
			t.Errorf("%s: %s × %d, want %s × %d", tc.name, c, c.Repeats, tc.want, tc.repeats)
		}
	}
}

func FuzzRecursionCycle(f *testing.F) {
	f.Add("a b a b a b a b a b")
	f.Add("x  y y y y y")
	f.Fuzz(func(t *testing.T, s string) {
		fs := strings.Split(s, " ")
		if len(fs) > 5000 {
			return
		}
		c := RecursionCycle(framesOf(fs...))
		if c != nil && (len(c.Functions) == 0 || len(c.Functions) > maxPeriod || c.Repeats < minRepeats) {
			t.Fatalf("cycle %+v", c)
		}
	})
}

package report

import (
	"strings"
	"testing"
)

func TestWriteHPUXMatchesUStackTrace(t *testing.T) {
	r := &Report{Core: Core{Arch: "hppa"}, Threads: []Thread{{TID: 1, Crashed: true, Frames: []Frame{
		{PC: 0x31f4, Function: Ptr("foo"), FunctionOffset: Ptr(Hex(0x14)), Module: Ptr("a.out")},
		{PC: 0x3250, Function: Ptr("main"), FunctionOffset: Ptr(Hex(0x28)), Module: Ptr("/tmp/a.out")},
		{PC: 0xc0001000},
	}}}}
	var b strings.Builder
	if err := WriteHPUX(&b, r); err != nil {
		t.Fatal(err)
	}
	want := "Thread 1 (crashed):\n( 0) 0x000031f4 foo + 0x14 [./a.out]\n( 1) 0x00003250 main + 0x28 [/tmp/a.out]\n( 2) 0xc0001000\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	r.Core.Arch = "hppa64"
	b.Reset()
	WriteHPUX(&b, r)
	if !strings.Contains(b.String(), "( 0) 0x00000000000031f4 foo + 0x14 [./a.out]") {
		t.Errorf("64-bit: %s", b.String())
	}
}

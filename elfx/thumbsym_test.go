package elfx

import (
	"debug/elf"
	"fmt"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestUnsizedThumbSymbols: crt1's _start in an armhf program is a Thumb
// FUNC symbol of size 0 (an odd value); it names the code up to the next
// symbol, as gdb-multiarch's info symbol does for every halfword of it:
// the outermost frame of every armhf backtrace.
func TestUnsizedThumbSymbols(t *testing.T) {
	gdb := testenv.NeedTool(t, "gdb-multiarch")
	dir := t.TempDir()
	exe := testenv.BuildCross(t, testenv.ARMHF, dir, "prog", `int main(void) { return 0; }`, "-O1", "-static")
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var start elf.Symbol
	for _, s := range syms {
		if s.Name == "_start" {
			start = s
		}
	}
	if start.Value&1 == 0 || start.Size != 0 || elf.ST_TYPE(start.Info) != elf.STT_FUNC {
		t.Fatalf("_start is %+v, not an unsized Thumb function", start)
	}
	o, err := Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	var addrs []uint64
	for off := uint64(0); off < 64; off += 2 {
		addrs = append(addrs, start.Value-1+off)
	}
	ref := gdbSymbolsBy(t, gdb, exe, addrs)
	inStart := 0
	for _, addr := range addrs {
		want, ok := ref[addr]
		if !ok {
			want = "??"
		}
		got := "??"
		if s, ok := o.Symbol(addr); ok {
			got = fmt.Sprintf("%s+%d", s.Name, addr-s.Addr)
		}
		if got != want {
			t.Errorf("%#x: %s; gdb says %s", addr, got, want)
		}
		if strings.HasPrefix(want, "_start+") {
			inStart++
		}
	}
	if inStart < 8 {
		t.Errorf("gdb names only %d of the addresses _start: %v", inStart, ref)
	}
}

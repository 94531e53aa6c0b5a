package pylayout

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// stateSource declares PyASCIIObject's state bit fields (3.11's order and
// widths) and prints the mask each field has in the word the reader
// reads: the compiler's own answer.
const stateSource = `#include <stdint.h>
#include <stdio.h>
#include <string.h>
struct state { unsigned int interned:2; unsigned int kind:3; unsigned int compact:1; unsigned int ascii:1; unsigned int ready:1; unsigned int :24; };
struct state probe;
#define MASK(f, w) do { struct state s; uint32_t word; memset(&s, 0, sizeof s); s.f = (1u << (w)) - 1; memcpy(&word, &s, 4); printf("%u ", word); } while (0)
int main(void) { MASK(interned, 2); MASK(kind, 3); MASK(compact, 1); MASK(ascii, 1); MASK(ready, 1); return 0; }
`

// TestBitMaskMatchesCompiler: the masks FromDWARF reads from a bit
// field's DWARF equal the masks the compiled program measures, on a
// little-endian target (the host) and a big-endian one (s390x, run under
// qemu), whose bit fields start at the other end of the word.
func TestBitMaskMatchesCompiler(t *testing.T) {
	for _, tc := range []struct {
		name  string
		order binary.ByteOrder
		build func(dir string) string
		run   func(prog string) *exec.Cmd
	}{
		{"host", binary.LittleEndian, func(dir string) string {
			return testenv.BuildC(t, dir, "state", stateSource, "-g")
		}, func(prog string) *exec.Cmd { return exec.Command(prog) }},
		{"s390x", binary.BigEndian, func(dir string) string {
			return testenv.BuildCross(t, testenv.S390X, dir, "state", stateSource, "-g")
		}, func(prog string) *exec.Cmd {
			testenv.NeedTool(t, testenv.S390X.Qemu)
			cmd := exec.Command(testenv.S390X.Qemu, prog)
			cmd.Env = append(os.Environ(), "QEMU_LD_PREFIX="+testenv.S390X.Sysroot())
			return cmd
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog := tc.build(t.TempDir())
			out, err := tc.run(prog).Output()
			if err != nil {
				t.Fatalf("%s: %v", prog, err)
			}
			var want [5]int64
			if _, err := fmt.Sscan(string(out), &want[0], &want[1], &want[2], &want[3], &want[4]); err != nil {
				t.Fatalf("%q: %v", out, err)
			}
			f, err := elf.Open(prog)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			d, err := f.DWARF()
			if err != nil {
				t.Fatal(err)
			}
			st := structNamed(t, d, "state")
			for i, field := range []string{"interned", "kind", "compact", "ascii", "ready"} {
				got, ok := bitMask(st, field, tc.order)
				if !ok || got != want[i] {
					t.Errorf("%s: mask %#x (%v), the compiler's %#x", field, got, ok, want[i])
				}
			}
		})
	}
}

// structNamed is the struct type of tag name in d.
func structNamed(t *testing.T, d *dwarf.Data, name string) dwarf.Type {
	t.Helper()
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			t.Fatalf("no struct %s in the DWARF (%v)", name, err)
		}
		if e.Tag == dwarf.TagStructType && e.Val(dwarf.AttrName) == name {
			ty, err := d.Type(e.Offset)
			if err != nil {
				t.Fatal(err)
			}
			return ty
		}
	}
}

package crashinfo

import (
	"encoding/binary"
	"strings"
	"testing"
)

// TestLibcxxabiExceptionOnStack: the header a stack word points to is
// the exception only when it proves itself a caught libc++abi one.
func TestLibcxxabiExceptionOnStack(t *testing.T) {
	l := libcxxabiLayout(8)
	for _, tc := range []struct {
		name   string
		damage func(mem []byte)
		typ    string
	}{
		{"caught", func([]byte) {}, "std::runtime_error"},
		{"not caught", func(mem []byte) { binary.LittleEndian.PutUint32(mem[0x100+l.handlerCount:], 0) }, ""},
		{"libstdc++'s class", func(mem []byte) { binary.LittleEndian.PutUint64(mem[0x100+l.unwind:], gnuCxxClass) }, ""},
		{"two headers", func(mem []byte) {
			copy(mem[0x180:0x200], mem[0x100:0x180])
			binary.LittleEndian.PutUint64(mem[8:], memBase+0x180)
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := libcxxabiSeed()
			tc.damage(mem)
			c := Analyze(fuzzInput(mem, "SIGABRT", 4, 0, 0, memBase))
			if c == nil {
				t.Fatal("no analysis")
			}
			got := ""
			if c.ExceptionType != nil {
				got = *c.ExceptionType
			}
			if got != tc.typ {
				t.Errorf("exception type %q, want %q (details %q)", got, tc.typ, c.Details)
			}
			if tc.typ == "" && !strings.Contains(strings.Join(c.Details, "\n"), "libc++abi exception header") {
				t.Errorf("no detail says why: %q", c.Details)
			}
		})
	}
}

package crashinfo

import (
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/x86_64"
)

// TestFaultWithoutSiginfo: a SIGSEGV in a core without siginfo
// (qemu-user's) is proven from the decoded instruction only where its
// operand's address alone proves it: below vm.mmap_min_addr, or in a
// mapping that forbids the access. Any other unmapped address proves
// nothing, as a core a debugger wrote may leave mappings out. The
// bytes' meaning is objdump's: 8b 40 18 is mov 0x18(%rax),%eax, c7 40
// 18 2a 00 00 00 movl $0x2a,0x18(%rax).
func TestFaultWithoutSiginfo(t *testing.T) {
	load := []byte{0x8b, 0x40, 0x18}
	store := []byte{0xc7, 0x40, 0x18, 0x2a, 0x00, 0x00, 0x00}
	for _, tc := range []struct {
		name    string
		code    []byte
		rax     uint64
		kind    string
		summary string
	}{
		{"NULL read", load, 0, "null_pointer", "read of field at offset 0x18 of a NULL pointer (rax = 0x0) (from the instruction; the core has no siginfo)"},
		{"small pointer read", load, 0x1000, "null_pointer", "read of address 0x1018, at offset 0x1018 of a NULL pointer"},
		{"write to code", store, memBase, "write_to_read_only", "write to read-only memory at 0x10018"},
		{"unmapped, not low", load, 0x7f0000000000, "signal", "SIGSEGV in mov 0x18(%rax),%eax"},
		{"read of readable memory", load, memBase, "signal", "SIGSEGV in mov 0x18(%rax),%eax"},
	} {
		f0 := unwind.NewFrame(x86_64.NumRegs)
		f0.Set(x86_64.RAX, tc.rax, unwind.SaveLoc{})
		f0.Set(x86_64.RIP, memBase, unwind.SaveLoc{})
		code := append(append([]byte{}, tc.code...), make([]byte, 64)...)
		c := Analyze(&Input{
			Arch: x86_64.Arch{}, Mem: &fakeMem{memBase, code}, Signal: Signal{Name: "SIGSEGV"}, Frame0: f0,
			Mappings: []report.Mapping{{Start: memBase, End: memBase + 0x1000, Perms: "r-x"}},
		})
		if c == nil || c.Kind != tc.kind || !strings.Contains(c.Summary, tc.summary) {
			t.Errorf("%s: %+v, want kind %s, summary with %q", tc.name, c, tc.kind, tc.summary)
		}
		if tc.kind != "signal" && !strings.HasSuffix(c.Summary, "(from the instruction; the core has no siginfo)") {
			t.Errorf("%s: %q does not say it is proven from the instruction", tc.name, c.Summary)
		}
	}
}

package pa64_test

import (
	"debug/elf"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/pa64"
	"github.com/coreunwind/coreunwind/pa64/unwtab"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// coreSpace is a minimal unwind.AddrSpace over a core and one executable
// at its link-time addresses: what a user of the HP unwind library
// interface would pass.
func coreSpace(c *corefile.Core, exe *elf.File, path string, syms []elf.Symbol) *unwindtest.Space {
	return &unwindtest.Space{Order: c.ByteOrder(), Ptr: c.PtrSize(), Read: c.ReadMem,
		Procs: func(ip uint64) (*unwind.ProcInfo, error) {
			pi, err := pa64.New(true).FindTableEntry(exe, ip)
			if err == nil {
				pi.Module = path
			}
			return pi, err
		},
		Names: func(ip uint64) (string, uint64, error) {
			best := -1
			for i, sym := range syms {
				if elf.ST_TYPE(sym.Info) == elf.STT_FUNC && sym.Value <= ip && ip < sym.Value+sym.Size {
					best = i
				}
			}
			if best < 0 {
				return "", 0, unwind.ErrNoInfo
			}
			return syms[best].Name, ip - syms[best].Value, nil
		}}
}

func TestHPUnwindLibraryStackTrace(t *testing.T) {
	prog, m := runCrash64(t)
	c, err := corefile.Open(hpuxCoreOf(t, m, t.TempDir()), corefile.Options{Executable: prog})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	exe, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	syms, _ := exe.Symbols()
	as := coreSpace(c, exe, prog, syms)
	arch := pa64.New(true)
	f0, err := arch.FrameFromThread(&unwind.ThreadState{GRegs: c.Threads[0].GRegs, Order: c.ByteOrder()})
	if err != nil {
		t.Fatal(err)
	}
	u := &pa64.Unwinder{AS: as, Arch: arch, Cache: unwind.NewCache(unwind.CacheGlobal)}
	cur := u.InitFrame(f0)
	if cur.RLO != m.PC || cur.SP != m.GR[30] {
		t.Errorf("frame 0: pc %#x sp %#x, interpreter %#x %#x", cur.RLO, cur.SP, m.PC, m.GR[30])
	}
	var b strings.Builder
	if err := u.StackTrace(&b, cur, 64); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{"leaf", "mid", "mid", "mid", "fp", "top", "_start"}
	line := regexp.MustCompile(`^\(\s*(\d+)\) 0x([0-9a-f]{16}) (\S+) \+ 0x[0-9a-f]+ \[(.+)\]$`)
	if len(lines) != len(want) {
		t.Fatalf("U_STACK_TRACE:\n%s\nwant %d frames", b.String(), len(want))
	}
	for i, l := range lines {
		mm := line.FindStringSubmatch(l)
		if mm == nil || mm[3] != want[i] || mm[4] != prog {
			t.Errorf("line %d %q: want %s in [%s]", i, l, want[i], prog)
		}
	}
	if !u.IsStackUnwound(cur) {
		t.Error("after the trace the state vector is not at the outermost frame")
	}
	if err := u.Resume(cur); !errors.Is(err, unwind.ErrReadOnly) {
		t.Errorf("Resume: %v", err)
	}
	// The previous-frame record of frame 0 describes mid's entry.
	cur = u.InitFrame(f0)
	var prev pa64.PreviousFrame
	if err := u.PreviousFrame(cur, &prev); err != nil {
		t.Fatal(err)
	}
	if !(unwtab.Descriptor{W1: prev.UDescr1, W2: prev.UDescr2}).SaveRP() || prev.UWIndex != 1 || prev.RLO != m.CallStack[len(m.CallStack)-1] {
		t.Errorf("previous frame %+v", prev)
	}
}

package ia64

import (
	"testing"

	"github.com/coreunwind/coreunwind/ia64/unwtab"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// The trampoline's ABI marker (.unwabi 3, 's', as the kernel's gate.S
// writes it) makes a script a signal trampoline's.
func TestSigtrampMarker(t *testing.T) {
	recs, err := unwtab.Decode([]byte{0x02, 0xff, 0x03, 's', 0x23})
	if err != nil {
		t.Fatal(err)
	}
	sr, err := buildState(recs, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := compile(sr); !s.isSigtramp() {
		t.Errorf("abi marker %#x: not a signal trampoline", s.abi)
	}
}

// stepSigtramp takes the interrupted frame from the sigcontext: exact
// ip with its slot, cfm, sp, and a frame beginning sof registers below
// sc_ar_bsp.
func TestStepSigtramp(t *testing.T) {
	const sp, sc = 0x60000000001f0000, 0x60000000001f0100
	cfm := uint64(10 | 6<<7) // sof 10, sol 6
	mem := &unwindtest.Space{}
	for addr, v := range map[uint64]uint64{
		sp + 0x20:        sc,
		sc + scIP:        0x4000000000001232,
		sc + scCFM:       cfm,
		sc + scARBSP:     0x6000000000200208, // past the NaT slot at 0x1f8
		sc + scGR + 8*12: 0x60000000001f8000,
		sc + scARPFS:     0x1234,
		sc + scBR:        0x4000000000000ff0,
	} {
		mem.Mem = append(mem.Mem, mem.Words(addr, v))
	}
	f := unwind.NewFrame(NumRegs)
	f.Set(SP, sp, unwind.SaveLoc{})
	f.Set(IP, 0xa000000000010640, unwind.SaveLoc{})
	c := unwind.NewFrame(NumRegs)
	if _, err := stepSigtramp(mem, f, c); err != nil {
		t.Fatal(err)
	}
	check := func(name string, r int, want uint64) {
		if v, ok := c.Get(r); !ok || v != want {
			t.Errorf("%s = %#x (%v), want %#x", name, v, ok, want)
		}
	}
	check("ip", IP, 0x4000000000001232)
	check("cfm", CFM, cfm)
	check("sp", SP, 0x60000000001f8000)
	check("pfs", PFS, 0x1234)
	check("b0", BR0, 0x4000000000000ff0)
	// 10 registers below 0x...208: 0x...200 and 9 more, skipping the
	// collection slot at 0x...1f8: 0x...1b0.
	check("bsp", BSP, 0x60000000002001b0)
	if !c.ExactPC {
		t.Errorf("interrupted frame's pc is not exact")
	}
}

// RSE arithmetic against a slot-by-slot walk, including the worked
// values of the IA-64 notes.
func TestRSESkipRegs(t *testing.T) {
	for _, c := range []struct {
		a    uint64
		n    int64
		want uint64
	}{
		{0x6000ffff00000028, -5, 0x6000ffff00000000},
		{0x60000000000001F0, 3, 0x6000000000000210},
		{0x6000000000000208, -2, 0x60000000000001F0},
	} {
		if got := RSESkipRegs(c.a, c.n); got != c.want {
			t.Errorf("skip(%#x, %d) = %#x, want %#x", c.a, c.n, got, c.want)
		}
	}
	walk := func(a uint64, n int64) uint64 {
		for ; n > 0; n-- {
			if a += 8; RSEIsRNaTSlot(a) {
				a += 8
			}
		}
		for ; n < 0; n++ {
			if a -= 8; RSEIsRNaTSlot(a) {
				a -= 8
			}
		}
		return a
	}
	for a := uint64(0x6000000000000000); a < 0x6000000000000800; a += 8 {
		if RSEIsRNaTSlot(a) {
			continue
		}
		for n := int64(-130); n <= 130; n += 7 {
			if got, want := RSESkipRegs(a, n), walk(a, n); got != want {
				t.Fatalf("skip(%#x, %d) = %#x, walk %#x", a, n, got, want)
			}
			if n >= 0 && RSENumRegs(a, RSESkipRegs(a, n)) != n {
				t.Fatalf("num_regs(%#x, skip(%d)) != %d", a, n, n)
			}
		}
	}
}

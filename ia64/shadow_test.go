package ia64

import (
	"testing"

	"github.com/coreunwind/coreunwind/corefile"
	crossia64 "github.com/coreunwind/coreunwind/internal/crossarch/ia64"
	"github.com/coreunwind/coreunwind/unwind"
)

// threadCursor starts a cursor with arch at the core's first thread.
func threadCursor(t *testing.T, arch unwind.Arch, as unwind.AddrSpace, c *corefile.Core, opts unwind.Options) *unwind.Cursor {
	t.Helper()
	th := c.Threads[0]
	f0, err := Arch{}.FrameFromThread(&unwind.ThreadState{GRegs: th.GRegs, Notes: th.Notes, Order: c.ByteOrder(), Mem: as})
	if err != nil {
		t.Fatal(err)
	}
	cur, err := unwind.NewCursor(as, arch, f0, opts)
	if err != nil {
		t.Fatal(err)
	}
	return cur
}

// walkAgainstShadow walks the core's thread and compares every frame
// (ip, sp, bsp, cfm, r4-r7, b1, preserved predicates, ar.unat, ar.lc)
// with the interpreter's shadow stack. Frames whose callee starts at an
// address in viaDyn must have trust dynamic, and no other may.
func walkAgainstShadow(t *testing.T, m *crossia64.Machine, as unwind.AddrSpace, c *corefile.Core, viaDyn map[uint64]bool) {
	t.Helper()
	cur := threadCursor(t, Arch{}, as, c, unwind.Options{Cache: unwind.NewCache(unwind.CacheGlobal)})
	type want struct {
		ip, sp, bsp, cfm uint64
		sf               *crossia64.ShadowFrame
	}
	wants := []want{{ip: m.IP, sp: m.GR[12], bsp: m.BSP, cfm: m.CFM}}
	for i := len(m.Shadow) - 1; i >= 0; i-- {
		s := &m.Shadow[i]
		wants = append(wants, want{s.IP, s.SP, s.BSP, s.CFM, s})
	}
	dynFrames := 0
	var calleeIP uint64
	for i, w := range wants {
		f := cur.Frame()
		get := func(r int) uint64 {
			v, ok := f.Get(r)
			if !ok {
				t.Errorf("frame %d: %s unknown", i, RegName(r))
			}
			return v
		}
		if ip, sp, bsp, cfm := get(IP), get(SP), get(BSP), get(CFM); ip != w.ip || sp != w.sp || bsp != w.bsp || cfm != w.cfm {
			t.Errorf("frame %d: ip %#x sp %#x bsp %#x cfm %#x; interpreter ip %#x sp %#x bsp %#x cfm %#x", i, ip, sp, bsp, cfm, w.ip, w.sp, w.bsp, w.cfm)
		}
		if s := w.sf; s != nil {
			for k := 0; k < 4; k++ {
				if v := get(4 + k); v != s.R4to7[k] {
					t.Errorf("frame %d: r%d = %#x, interpreter %#x", i, 4+k, v, s.R4to7[k])
				}
			}
			if v := get(BR0 + 1); v != s.B1to5[0] {
				t.Errorf("frame %d: b1 = %#x, interpreter %#x", i, v, s.B1to5[0])
			}
			if v := get(PR); v&preservedPR != s.PR&preservedPR {
				t.Errorf("frame %d: pr = %#x, interpreter %#x", i, v, s.PR)
			}
			if v := get(UNAT); v != s.UNAT {
				t.Errorf("frame %d: ar.unat = %#x, interpreter %#x", i, v, s.UNAT)
			}
			if v := get(LC); v != s.LC {
				t.Errorf("frame %d: ar.lc = %#x, interpreter %#x", i, v, s.LC)
			}
		}
		if i > 0 {
			pi, err := as.FindProcInfo(calleeIP)
			isDyn := err == nil && pi.Format != unwind.FormatUnwindTable && viaDyn[pi.StartIP]
			if isDyn {
				dynFrames++
			}
			if got := f.Trust == unwind.TrustDynamic; got != isDyn {
				t.Errorf("frame %d: trust %v, callee %#x registered: %v", i, f.Trust, calleeIP, isDyn)
			}
		}
		calleeIP = f.LookupPC(IP)
		more, err := cur.Step()
		if i == len(wants)-1 {
			if more || err != nil {
				t.Errorf("after the outermost frame: more %v, err %v", more, err)
			}
			break
		}
		if !more {
			t.Fatalf("frame %d: walk ended early: %v", i, err)
		}
	}
	if dynFrames != len(viaDyn) {
		t.Errorf("%d frames found through registered info, want %d", dynFrames, len(viaDyn))
	}
}

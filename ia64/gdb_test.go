package ia64

import (
	"fmt"
	"path/filepath"
	"testing"

	crossia64 "github.com/coreunwind/coreunwind/internal/crossarch/ia64"
)

// TestWalkAgreesWithGDB: the pc and bsp chains of coreunwind's walks
// agree with gdb-multiarch's backtrace of the same state, frame by
// frame, in both byte orders, from the Linux core and (big-endian) from
// the HP-UX core of the same run. gdb reads a re-wrapped copy of the
// registers (WriteGDBCore) and unwinds with its prologue analyser, so it
// can judge stackrec.s to its end; on walk.s it loses the chain where rp
// is saved on the memory stack, and the frames up to there are compared.
func TestWalkAgreesWithGDB(t *testing.T) {
	for _, c := range []struct {
		prog     string
		be       bool
		wholeWay bool
	}{{"stackrec", false, true}, {"stackrec", true, true}, {"walk", false, false}, {"walk", true, false}} {
		t.Run(fmt.Sprintf("%s/be=%v", c.prog, c.be), func(t *testing.T) {
			m, exe, dir := runProgram(t, c.prog, c.be)
			linux, hpux, gcore := filepath.Join(dir, "core"), filepath.Join(dir, "core.hpux"), filepath.Join(dir, "core.gdb")
			if err := m.WriteLinuxCore(linux, exe, 4242, 11); err != nil {
				t.Fatal(err)
			}
			if err := m.WriteHPUXCore(hpux, exe, 11, false); err != nil {
				t.Fatal(err)
			}
			if err := m.WriteGDBCore(gcore, 4242); err != nil {
				t.Fatal(err)
			}
			g := crossia64.GDBBacktrace(t, exe, gcore)
			judged := len(g)
			for i, f := range g {
				if f.PC == 0 {
					judged = i // gdb lost the chain here
					break
				}
			}
			if c.wholeWay && judged != len(g) {
				t.Fatalf("gdb stopped judging after %d of %d frames", judged, len(g))
			}
			if judged < 2 {
				t.Fatalf("gdb judged %d frames: nothing compared", judged)
			}
			for _, core := range []string{linux, hpux} {
				ours := walkCore(t, core, exe)
				if c.wholeWay && len(ours) != len(g) {
					t.Errorf("%s: %d frames, gdb %d", filepath.Base(core), len(ours), len(g))
				}
				if len(ours) < judged {
					t.Fatalf("%s: %d frames, gdb judged %d", filepath.Base(core), len(ours), judged)
				}
				for i := 0; i < judged; i++ {
					o := ours[i]
					end := RSESkipRegs(o.bsp, cfmSOF(o.cfm))
					// gdb shows frame 0 at the bundle or at bundle+slot.
					pcOK := g[i].PC == o.ip || (i == 0 && g[i].PC == o.ip&^0xf)
					if !pcOK || g[i].BSP != end || g[i].CFM != o.cfm {
						t.Errorf("%s frame %d: pc %#x bsp-end %#x cfm %#x; gdb %s pc %#x bsp %#x cfm %#x",
							filepath.Base(core), i, o.ip, end, o.cfm, g[i].Func, g[i].PC, g[i].BSP, g[i].CFM)
					}
				}
			}
		})
	}
}

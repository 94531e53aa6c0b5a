package e2e

import "testing"

// The units programs (units_*.cc): a NULL load in functions inlined
// into units::leaf and units::walk, each in its own unit, in namespace
// units. Built with -flto, the code's units name their functions with
// DW_FORM_ref_addr into the early-debug units of each file; processed
// by dwz, the shared DIEs move into partial units that the units import.
// Processed by dwz -m with a twin, they go into a supplementary file that
// .gnu_debugaltlink names. Every frame must be gdb's: names (qualified
// by the namespace of the DIE in the other unit or file), pcs, lines and
// inlined frames.
func TestUnitsLTO(t *testing.T)      { testUnits(t, "units-lto") }
func TestUnitsDWZ(t *testing.T)      { testUnits(t, "units-dwz") }
func TestUnitsDWZMulti(t *testing.T) { testUnits(t, "units-dwzm") }

func testUnits(t *testing.T, prog string) {
	t.Parallel()
	c := crashAndUnwind(t, prog, nil, nil)
	compareWithReferences(t, c.GDB, c.EU, c.Report)
	th := c.crashed(t)
	if sameFramesAsGDB(t, c, th, "units_main.cc", "units_walk.cc", "units_leaf.cc", "units.h") == 0 {
		t.Errorf("gdb shows no inlined frame; the test program no longer tests inlining:\n%s", c.GDBOut)
	}
	expectFunctions(t, th, "units::walk", "main")
}

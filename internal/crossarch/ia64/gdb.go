package ia64

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// GDBFrame is one frame of gdb-multiarch's backtrace of a core.
type GDBFrame struct {
	PC   uint64
	BSP  uint64 // gdb's $bsp in that frame: the END of its register frame
	CFM  uint64
	Func string
}

// gdbWalk prints pc, bsp, cfm and name per frame, innermost first.
const gdbWalk = `python
f = gdb.newest_frame()
while f is not None:
    r = lambda n: int(f.read_register(n)) & (2**64 - 1)
    print("FRAME %x %x %x %s" % (f.pc(), r("bsp"), r("cfm"), f.name()))
    f = f.older()
`

// GDBBacktrace runs gdb-multiarch on exe and a core written by
// WriteGDBCore and returns its frames. gdb unwinds IA-64 with its own
// prologue analyser (no unwind tables), an independent judge of the pc
// and bsp chains; the GNU/Linux osabi gives its ia64 register map.
func GDBBacktrace(t testing.TB, exe, core string) []GDBFrame {
	t.Helper()
	gdb := testenv.NeedTool(t, "gdb-multiarch")
	out, err := exec.Command(gdb, "-nx", "-batch", "-ex", "set osabi GNU/Linux", "-ex", gdbWalk, exe, core).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb-multiarch: %v\n%s", err, out)
	}
	var frames []GDBFrame
	for _, line := range strings.Split(string(out), "\n") {
		fs := strings.Fields(line)
		if len(fs) != 5 || fs[0] != "FRAME" {
			continue
		}
		var g GDBFrame
		g.PC, _ = strconv.ParseUint(fs[1], 16, 64)
		g.BSP, _ = strconv.ParseUint(fs[2], 16, 64)
		g.CFM, _ = strconv.ParseUint(fs[3], 16, 64)
		g.Func = fs[4]
		frames = append(frames, g)
	}
	if len(frames) == 0 {
		t.Fatalf("gdb-multiarch printed no frames:\n%s", out)
	}
	return frames
}

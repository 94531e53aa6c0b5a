package ia64

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/corefile"
	crossia64 "github.com/coreunwind/coreunwind/internal/crossarch/ia64"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
)

// runProgram assembles testdata/name.s in the given byte order and runs
// it in the interpreter until it stops (a fault or a break).
func runProgram(t *testing.T, name string, be bool) (m *crossia64.Machine, exe, dir string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name+".s"))
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	exe = crossia64.Build(t, dir, name, string(src), be, true, "_start")
	objdump := testenv.NeedTool(t, "ia64-linux-gnu-objdump")
	if m, err = crossia64.NewMachine(objdump, exe); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(100000); err != nil {
		t.Fatal(err)
	}
	return m, exe, dir
}

// walkedFrame is what a walk recovered for one frame.
type walkedFrame struct {
	ip, sp, bsp, cfm uint64
	r4to7            [4]uint64
	b1               uint64
}

// walkCore opens core, builds frame 0 through FrameFromThread and walks
// to the end with the executable's unwind table.
func walkCore(t *testing.T, core, exe string) []walkedFrame {
	t.Helper()
	c, err := corefile.Open(core, corefile.Options{Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Arch != "ia64" || len(c.Threads) != 1 {
		t.Fatalf("arch %q, %d threads", c.Arch, len(c.Threads))
	}
	ef, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	as := coreSpace(c, ef)
	cur := threadCursor(t, Arch{}, as, c, unwind.Options{Cache: unwind.NewCache(unwind.CacheGlobal)})
	var out []walkedFrame
	for {
		f := cur.Frame()
		var w walkedFrame
		w.ip, _ = f.Get(IP)
		w.sp, _ = f.Get(SP)
		w.bsp, _ = f.Get(BSP)
		w.cfm, _ = f.Get(CFM)
		for k := range w.r4to7 {
			w.r4to7[k], _ = f.Get(4 + k)
		}
		w.b1, _ = f.Get(BR0 + 1)
		out = append(out, w)
		more, err := cur.Step()
		if err != nil {
			t.Fatalf("step after frame %d (ip %#x): %v", len(out)-1, w.ip, err)
		}
		if !more || len(out) > 1000 {
			return out
		}
	}
}

// interpreterChain is the interpreter's truth: the current frame, then
// every caller, innermost first.
func interpreterChain(m *crossia64.Machine) []walkedFrame {
	out := []walkedFrame{{ip: m.IP, sp: m.GR[12], bsp: m.BSP, cfm: m.CFM}}
	copy(out[0].r4to7[:], m.GR[4:8])
	out[0].b1 = m.BR[1]
	for i := len(m.Shadow) - 1; i >= 0; i-- {
		s := m.Shadow[i]
		out = append(out, walkedFrame{ip: s.IP, sp: s.SP, bsp: s.BSP, cfm: s.CFM, r4to7: s.R4to7, b1: s.B1to5[0]})
	}
	return out
}

func compareChains(t *testing.T, what string, got, want []walkedFrame) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d frames, want %d", what, len(got), len(want))
	}
	for i := 0; i < min(len(got), len(want)); i++ {
		if got[i] != want[i] {
			t.Errorf("%s frame %d:\n got  %+v\n want %+v", what, i, got[i], want[i])
		}
	}
}

// TestWalkHPUXCore: one interpreted run of big-endian code written both
// as a Linux core and as an HP-UX core; both walks recover every frame's
// ip, sp, bsp, cfm, r4-r7 and b1 as the interpreter left them.
func TestWalkHPUXCore(t *testing.T) {
	for _, be := range []bool{true, false} {
		t.Run(fmt.Sprint("be=", be), func(t *testing.T) {
			m, exe, dir := runProgram(t, "walk", be)
			if m.Fault != "load" || m.FaultAt != 0 {
				t.Fatalf("stopped by %q at %#x, want the NULL load", m.Fault, m.FaultAt)
			}
			linux, hpux := filepath.Join(dir, "core.linux"), filepath.Join(dir, "core.hpux")
			if err := m.WriteLinuxCore(linux, exe, 4242, 11); err != nil {
				t.Fatal(err)
			}
			if err := m.WriteHPUXCore(hpux, exe, 11, false); err != nil {
				t.Fatal(err)
			}
			c, err := corefile.Open(hpux, corefile.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c.OS != "hpux" || c.Signal == nil || c.Signal.Number != 11 {
				t.Errorf("HP-UX core: os %q, signal %+v", c.OS, c.Signal)
			}
			c.Close()
			want := interpreterChain(m)
			if len(want) < 13 {
				t.Fatalf("%d frames: the test wants a deep chain", len(want))
			}
			compareChains(t, "linux", walkCore(t, linux, exe), want)
			compareChains(t, "hpux", walkCore(t, hpux, exe), want)
		})
	}
}

// TestWalkHPUXInSyscall: a thread stopped in a system call (reason 0)
// has an ar.bsp sol registers past its frame's beginning, not sof; the
// walk still finds every frame where the interpreter left it.
func TestWalkHPUXInSyscall(t *testing.T) {
	m, exe, dir := runProgram(t, "syscall", true)
	if m.Fault != "break" {
		t.Fatalf("stopped by %q, want the syscall break", m.Fault)
	}
	sof, sol := m.CFM&0x7f, m.CFM>>7&0x7f
	if sol == 0 || sof == sol {
		t.Fatalf("cfm %#x: the test wants locals and outputs in the syscall frame", m.CFM)
	}
	core := filepath.Join(dir, "core")
	if err := m.WriteHPUXCore(core, exe, 0, true); err != nil {
		t.Fatal(err)
	}
	got := walkCore(t, core, exe)
	compareChains(t, "in syscall", got, interpreterChain(m))

	// Read as if the thread had trapped (reason != 0), the same bytes
	// put frame 0's registers (sof - sol) slots too low: the rule matters.
	ss := m.HPUXSaveState(true)
	m.Order.PutUint64(ss[hpuxSSReason:], 1)
	st, err := decodeHPUXSaveState(ss, m.Order)
	if err != nil {
		t.Fatal(err)
	}
	if bsp, _ := st.frame.Get(BSP); bsp == m.BSP {
		t.Errorf("reason ignored: bsp %#x either way", bsp)
	}
}

// ia64 tells HP-UX threads by corefile's proc_info key without importing
// corefile: the two constants must stay equal.
func TestHPUXProcInfoKey(t *testing.T) {
	if ntHPUXProcInfo != corefile.NTHPUXProcInfo {
		t.Errorf("ia64 key %#x, corefile %#x", ntHPUXProcInfo, corefile.NTHPUXProcInfo)
	}
}

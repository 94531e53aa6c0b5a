package ia64

import (
	"debug/elf"
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/ia64/unwtab"
	crossia64 "github.com/coreunwind/coreunwind/internal/crossarch/ia64"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// hpuxTrampoline is an HP-UX style signal trampoline: its unwind info is
// the ABI marker .unwabi @hpux, 1 and nothing else.
const hpuxTrampoline = `
	.global hpux_sigtramp
	.proc hpux_sigtramp
hpux_sigtramp:
	.prologue
	.unwabi @hpux, 1
	.body
	nop.m 0
	nop.i 0
	nop.i 0
	;;
	break.i 0x100000
	;;
	.endp hpux_sigtramp
`

// TestWalkHPUXSigtramp: walk.s runs to its fault; the test then delivers
// the signal as the HP-UX kernel would — the interrupted state saved in
// a ucontext on the memory stack, the interrupted frame covered, the
// trampoline started with the ucontext pointer in r32 — and writes the
// HP-UX core. The walk goes from the trampoline to the interrupted frame
// (exact ip and slot, sp, bsp, cfm, r4-r7, b1 from the ucontext) and on
// through every caller the interpreter made.
func TestWalkHPUXSigtramp(t *testing.T) {
	src, err := os.ReadFile("testdata/walk.s")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	exe := crossia64.Build(t, dir, "walktramp", string(src)+hpuxTrampoline, true, true, "_start")
	m, err := crossia64.NewMachine(testenv.NeedTool(t, "ia64-linux-gnu-objdump"), exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(100000); err != nil || m.Fault != "load" {
		t.Fatalf("run: %v, stopped by %q", err, m.Fault)
	}
	interrupted := interpreterChain(m)

	ef, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	syms, _ := ef.Symbols()
	ef.Close()
	var tramp uint64
	for _, s := range syms {
		if s.Name == "hpux_sigtramp" {
			tramp = s.Value
		}
	}
	if tramp == 0 {
		t.Fatal("no hpux_sigtramp symbol")
	}

	// Deliver the signal.
	ss := m.HPUXSaveState(false)
	uc := (m.GR[12] - 0x2000) &^ 0xf
	const ucSaveState = 0x40 // where the assumed ucontext_t keeps it
	for i := 0; i+8 <= len(ss); i += 8 {
		if !m.Store8(uc+ucSaveState+uint64(i), m.Order.Uint64(ss[i:])) {
			t.Fatalf("ucontext at %#x does not fit the stack", uc)
		}
	}
	m.BSP = crossia64.RSESkip(m.BSP, int64(m.CFM&0x7f)) // cover
	m.CFM = 1
	if err := m.SetGR(32, uc); err != nil {
		t.Fatal(err)
	}
	m.GR[12] = uc - 16
	m.IP = tramp + 0x10
	m.BR[0] = 0 // the trampoline does not return through b0
	tframe := walkedFrame{ip: m.IP, sp: m.GR[12], bsp: m.BSP, cfm: m.CFM, b1: m.BR[1]}
	copy(tframe.r4to7[:], m.GR[4:8])

	core := filepath.Join(dir, "core")
	if err := m.WriteHPUXCore(core, exe, 11, false); err != nil {
		t.Fatal(err)
	}
	got := walkCore(t, core, exe)
	compareChains(t, "through the HP-UX trampoline", got, append([]walkedFrame{tframe}, interrupted...))
}

// The P10 marker @hpux, 1 makes a script an HP-UX trampoline's, and
// not a Linux one's.
func TestHPUXSigtrampMarker(t *testing.T) {
	recs, err := unwtab.Decode([]byte{0x02, 0xff, 0x01, 0x01, 0x23})
	if err != nil {
		t.Fatal(err)
	}
	sr, err := buildState(recs, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := compile(sr); !s.isHPUXSigtramp() || s.isSigtramp() {
		t.Errorf("abi marker %#x: hpux %v, linux %v", s.abi, s.isHPUXSigtramp(), s.isSigtramp())
	}
}

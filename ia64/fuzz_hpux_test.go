package ia64

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/corefile"
	crossia64 "github.com/coreunwind/coreunwind/internal/crossarch/ia64"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// interpretedSaveState runs walk.s (big-endian) when the IA-64 tools are
// installed and returns its HP-UX save area and the backing store, as
// fuzz seeds from a real run.
func interpretedSaveState(f *testing.F) (ss, rbs []byte) {
	if _, err := exec.LookPath("ia64-linux-gnu-as"); err != nil {
		return nil, nil
	}
	if _, err := exec.LookPath("ia64-linux-gnu-objdump"); err != nil {
		return nil, nil
	}
	src, err := os.ReadFile("testdata/walk.s")
	if err != nil {
		return nil, nil
	}
	exe := crossia64.Build(f, f.TempDir(), "walk", string(src), true, true, "_start")
	objdump, _ := exec.LookPath("ia64-linux-gnu-objdump")
	m, err := crossia64.NewMachine(objdump, exe)
	if err != nil || m.Run(10000) != nil {
		return nil, nil
	}
	for _, r := range m.Mem {
		if r.Name == "[rbs]" {
			rbs = r.Data[:0x1000]
		}
	}
	return m.HPUXSaveState(false), rbs
}

// FuzzHPUXSaveState: any save area (hostile cfm, bsp, reason) over any
// backing store gives frame 0 or an error, and a step from it ends.
func FuzzHPUXSaveState(f *testing.F) {
	f.Add(make([]byte, HPUXSaveStateMin), []byte{})
	f.Add(make([]byte, HPUXSaveStateMin-1), []byte{})
	if ss, rbs := interpretedSaveState(f); ss != nil {
		f.Add(ss, rbs)
		f.Add(ss[:HPUXSaveStateMin], rbs[:64])
	}
	f.Fuzz(func(t *testing.T, ss, rbs []byte) {
		mem := &unwindtest.Space{Order: binary.BigEndian, Mem: []unwindtest.Region{{Addr: crossia64.RBSBase, Data: rbs}}}
		th := &unwind.ThreadState{GRegs: ss, Notes: map[uint32][]byte{ntHPUXProcInfo: nil}, Order: binary.BigEndian, Mem: mem}
		f0, err := Arch{}.FrameFromThread(th)
		if err != nil {
			if len(ss) >= HPUXSaveStateMin {
				t.Fatalf("%d bytes refused: %v", len(ss), err)
			}
			return
		}
		c := unwind.NewFrame(NumRegs)
		_, _ = stepScript(mem, leafScript, f0, c)
	})
}

// FuzzHPUXSigtramp: a trampoline frame whose r32 points anywhere in (or
// out of) hostile memory gives the interrupted frame or an error.
func FuzzHPUXSigtramp(f *testing.F) {
	const base = 0x6000000000100000
	f.Add(make([]byte, 0x40+HPUXSaveStateSize), uint64(base))
	f.Add(make([]byte, 0x40+HPUXSaveStateMin), uint64(base))
	f.Add([]byte{1, 2, 3}, uint64(base-8))
	if ss, _ := interpretedSaveState(f); ss != nil {
		f.Add(append(make([]byte, 0x40), ss...), uint64(base))
	}
	f.Fuzz(func(t *testing.T, mem []byte, uc uint64) {
		as := &unwindtest.Space{Order: binary.BigEndian, Mem: []unwindtest.Region{{Addr: base, Data: mem}}}
		tr := unwind.NewFrame(NumRegs)
		tr.Set(32, uc, unwind.SaveLoc{})
		c := unwind.NewFrame(NumRegs)
		if _, err := stepHPUXSigtramp(as, tr, c); err == nil {
			if _, ok := c.Get(IP); !ok {
				t.Fatalf("a step without an ip")
			}
		}
	})
}

// TestTruncatedHPUXCore: an HP-UX core cut anywhere opens with an error
// or what survived, and frame 0 and the walk from it end with frames or
// an error — never a panic or a hang.
func TestTruncatedHPUXCore(t *testing.T) {
	m, exe, dir := runProgram(t, "walk", true)
	whole := filepath.Join(dir, "core.whole")
	if err := m.WriteHPUXCore(whole, exe, 11, false); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "core.cut")
	opened := 0
	for n := 0; n < len(data); n += 1 + n/16 {
		if err := os.WriteFile(cut, data[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := corefile.Open(cut, corefile.Options{})
		if err != nil {
			continue
		}
		opened++
		for _, th := range c.Threads {
			f0, err := Arch{}.FrameFromThread(&unwind.ThreadState{GRegs: th.GRegs, Notes: th.Notes, Order: c.ByteOrder(), Mem: coreSpace(c, nil)})
			if err != nil {
				continue
			}
			cur, err := unwind.NewCursor(coreSpace(c, nil), Arch{}, f0, unwind.Options{MaxFrames: 64})
			if err != nil {
				continue
			}
			for i := 0; i < 64; i++ {
				if more, _ := cur.Step(); !more {
					break
				}
			}
		}
		c.Close()
	}
	if opened == 0 {
		t.Errorf("no truncated core opened at all: the test exercised nothing past corefile")
	}
}

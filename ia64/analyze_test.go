package ia64_test

// Tests of the whole pipeline (corefile, analyze, symbolization) on
// interpreted IA-64 cores. They are an external test package because
// analyze imports ia64 (every arch is registered by importing analyze);
// export_test.go lends them the internal tests' helpers.

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/ia64"
	crossia64 "github.com/coreunwind/coreunwind/internal/crossarch/ia64"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestAnalyzeHPUXCore: the whole pipeline names every frame of the HP-UX
// core as it names the Linux core's of the same run.
func TestAnalyzeHPUXCore(t *testing.T) {
	m, exe, dir := ia64.RunProgram(t, "walk", true)
	linux, hpux := filepath.Join(dir, "core.linux"), filepath.Join(dir, "core.hpux")
	if err := m.WriteLinuxCore(linux, exe, 4242, 11); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteHPUXCore(hpux, exe, 11, false); err != nil {
		t.Fatal(err)
	}
	rl, err := analyze.Analyze(linux, analyze.Options{Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	rh, err := analyze.Analyze(hpux, analyze.Options{Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	if len(rh.Threads) != 1 || len(rl.Threads) != 1 {
		t.Fatalf("threads: hpux %d, linux %d", len(rh.Threads), len(rl.Threads))
	}
	fl, fh := rl.Threads[0].Frames, rh.Threads[0].Frames
	if e := rh.Threads[0].Error; e != nil {
		t.Errorf("hpux thread error: %s", *e)
	}
	if len(fh) != len(fl) || len(fh) != len(m.Shadow)+1 {
		t.Fatalf("frames: hpux %d, linux %d, interpreter %d", len(fh), len(fl), len(m.Shadow)+1)
	}
	for i := range fh {
		name := func(p *string) string {
			if p == nil {
				return "?"
			}
			return *p
		}
		if fh[i].PC != fl[i].PC || name(fh[i].Function) != name(fl[i].Function) || fh[i].Function == nil {
			t.Errorf("frame %d: hpux %#x %s, linux %#x %s", i, uint64(fh[i].PC), name(fh[i].Function), uint64(fl[i].PC), name(fl[i].Function))
		}
	}
}

// TestAnalyzeDynamicCore: the whole pipeline finds the list by its
// symbol, names the generated frames by their registered names and
// walks to the interpreter's frames.
func TestAnalyzeDynamicCore(t *testing.T) {
	r := ia64.RunDynToCore(t, false, 1)
	rep, err := analyze.Analyze(r.Core, analyze.Options{Executable: r.Exe})
	if err != nil {
		t.Fatal(err)
	}
	th := rep.Threads[0]
	pcs := []uint64{r.M.IP}
	for i := len(r.M.Shadow) - 1; i >= 0; i-- {
		pcs = append(pcs, r.M.Shadow[i].IP)
	}
	if len(th.Frames) != len(pcs) {
		for i, f := range th.Frames {
			t.Logf("frame %d: pc %#x %v trust %v", i, uint64(f.PC), f.Function, f.Trust)
		}
		if th.Error != nil {
			t.Logf("thread error: %s", *th.Error)
		}
		t.Fatalf("%d frames, interpreter %d (warnings %v)", len(th.Frames), len(pcs), rep.Warnings)
	}
	names := map[string]bool{}
	for i, f := range th.Frames {
		if uint64(f.PC) != pcs[i] {
			t.Errorf("frame %d: pc %#x, interpreter %#x", i, uint64(f.PC), pcs[i])
		}
		if f.Function != nil {
			names[*f.Function] = true
		}
	}
	for _, n := range []string{"jit_a.generated", "jit_b.generated", "jit_c.table", "level1", "level3", "rec", "crash", "_start"} {
		if !names[n] {
			t.Errorf("no frame named %q: %v", n, names)
		}
	}
}

// TestAnalyzeListFoundFromCode: dynwalk.s with _U_dyn_info_list_addr,
// run by the interpreter, its generated code registered in the list, and
// the list's symbol removed from the executable the core names (as in a
// stripped libunwind, where the variable is hidden). The whole pipeline
// finds the list only by evaluating the function's bundles with __gp,
// names the generated frames by their registered names and walks to the
// interpreter's frames, in both byte orders.
func TestAnalyzeListFoundFromCode(t *testing.T) {
	for _, be := range []bool{false, true} {
		t.Run(fmt.Sprintf("be=%v", be), func(t *testing.T) {
			src, err := os.ReadFile("testdata/dynwalk.s")
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			built := crossia64.BuildLinked(t, dir, "dynwalk", string(src)+listAddrFunc, be, true, "_start", fmt.Sprintf("--section-start=.jit=%#x", uint64(ia64.JITBase)))
			objdump := testenv.NeedTool(t, "ia64-linux-gnu-objdump")
			m, err := crossia64.NewMachine(objdump, built)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Run(20000); err != nil {
				t.Fatal(err)
			}
			if m.Fault != "load" || m.FaultAt != 0 {
				t.Fatalf("stopped by %q at %#x, want the NULL load", m.Fault, m.FaultAt)
			}

			// The executable the core names: the list's symbol gone and
			// jit_c's table entry dropped (it is registered instead).
			objcopy := testenv.NeedTool(t, "ia64-linux-gnu-objcopy")
			stripped := filepath.Join(dir, "dynwalk.stripped")
			if out, err := exec.Command(objcopy, "--strip-symbol=_U_dyn_info_list", built, stripped).CombinedOutput(); err != nil {
				t.Fatalf("objcopy: %v\n%s", err, out)
			}
			readelf := testenv.NeedTool(t, "ia64-linux-gnu-readelf")
			syms, err := exec.Command(readelf, "-sW", stripped).Output()
			if err != nil {
				t.Fatal(err)
			}
			if s := string(syms); strings.Contains(s, " _U_dyn_info_list\n") || !strings.Contains(s, " _U_dyn_info_list_addr\n") || !strings.Contains(s, " __gp\n") {
				t.Fatalf("the stripped executable's symbols are not as the test needs (no list, the function, __gp):\n%s", s)
			}
			sf, err := elf.Open(stripped)
			if err != nil {
				t.Fatal(err)
			}
			defer sf.Close()
			exe := filepath.Join(dir, "dynwalk.nojit")
			ia64.DropTableEntries(t, sf, stripped, exe, ia64.JITBase)

			r := &ia64.DynRun{M: m, Exe: exe, Core: filepath.Join(dir, "core"), JIT: map[string][2]uint64{}}
			f, err := elf.Open(built)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			all, err := f.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			sym := map[string]uint64{}
			for _, s := range all {
				sym[s.Name] = s.Value
			}
			r.List = sym["_U_dyn_info_list"]
			r.JIT["jit_a"] = [2]uint64{sym["jit_a"], sym["jit_b"]}
			r.JIT["jit_b"] = [2]uint64{sym["jit_b"], sym["jit_c"]}
			jitText := f.Section(".jit")
			if r.List == 0 || jitText == nil {
				t.Fatalf("list %#x, .jit %v", r.List, jitText)
			}
			r.JIT["jit_c"] = [2]uint64{sym["jit_c"], jitText.Addr + jitText.Size}

			area := m.NewDynArea(sym["dyn_area"], 4096)
			infoAddr, err := area.Put(ia64.JITInfoBlock(t, filepath.Join(dir, "dynwalk.o"), f.ByteOrder))
			if err != nil {
				t.Fatal(err)
			}
			seg := uint64(ia64.JITBase &^ 0xffff)
			triple := make([]byte, 24)
			m.Order.PutUint64(triple[0:], r.JIT["jit_c"][0]-seg)
			m.Order.PutUint64(triple[8:], r.JIT["jit_c"][1]-seg)
			m.Order.PutUint64(triple[16:], infoAddr-seg)
			tableAddr, err := area.Put(triple)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.WriteDynList(r.List, 3, area, append(ia64.DynwalkProcs(t, r), crossia64.DynEntry{
				Start: r.JIT["jit_c"][0], End: r.JIT["jit_c"][1], Format: 1, Name: "jit_c.table",
				Segbase: seg, TableLen: 3, TableData: tableAddr,
			})); err != nil {
				t.Fatal(err)
			}
			for _, reg := range m.Mem {
				switch {
				case reg.Base <= ia64.JITBase && ia64.JITBase < reg.Base+uint64(len(reg.Data)):
					reg.Name = "[jit]"
				case reg.Name == built:
					reg.Name = exe
				}
			}
			if err := m.WriteLinuxCore(r.Core, exe, 4344, 11); err != nil {
				t.Fatal(err)
			}

			rep, err := analyze.Analyze(r.Core, analyze.Options{Executable: exe})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range rep.Warnings {
				if strings.Contains(w, "_U_dyn_info_list") || strings.Contains(w, "dynamic") {
					t.Errorf("warning: %s", w)
				}
			}
			pcs := []uint64{m.IP}
			for i := len(m.Shadow) - 1; i >= 0; i-- {
				pcs = append(pcs, m.Shadow[i].IP)
			}
			th := rep.Threads[0]
			names := map[string]bool{}
			for i, fr := range th.Frames {
				if i < len(pcs) && uint64(fr.PC) != pcs[i] {
					t.Errorf("frame %d: pc %#x, interpreter %#x", i, uint64(fr.PC), pcs[i])
				}
				if fr.Function != nil {
					names[*fr.Function] = true
				}
			}
			if len(th.Frames) != len(pcs) {
				t.Errorf("%d frames, interpreter %d (warnings %q)", len(th.Frames), len(pcs), rep.Warnings)
			}
			for _, n := range []string{"jit_a.generated", "jit_b.generated", "jit_c.table", "level1", "crash", "_start"} {
				if !names[n] {
					t.Errorf("no frame named %q: %v", n, names)
				}
			}
		})
	}
}

// TestAnalyzeInterpretedCore: the whole pipeline (corefile, analyze,
// symbolization) names every frame of the interpreted core as
// addr2line names the call sites, and the frames' PCs are the
// interpreter's.
func TestAnalyzeInterpretedCore(t *testing.T) {
	m, exe, core := ia64.RunToCore(t, false)
	r, err := analyze.Analyze(core, analyze.Options{Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Threads) != 1 {
		t.Fatalf("%d threads", len(r.Threads))
	}
	th := r.Threads[0]
	if th.Error != nil {
		t.Errorf("thread error: %s", *th.Error)
	}
	pcs := []uint64{m.IP}
	for i := len(m.Shadow) - 1; i >= 0; i-- {
		pcs = append(pcs, m.Shadow[i].IP)
	}
	if len(th.Frames) != len(pcs) {
		t.Fatalf("%d frames, interpreter %d", len(th.Frames), len(pcs))
	}
	a2l := testenv.NeedTool(t, "ia64-linux-gnu-addr2line")
	for i, f := range th.Frames {
		if uint64(f.PC) != pcs[i] {
			t.Errorf("frame %d: pc %#x, interpreter %#x", i, uint64(f.PC), pcs[i])
		}
		lookup := pcs[i]
		if i > 0 {
			lookup-- // the call bundle, not the return address
		}
		out, err := exec.Command(a2l, "-f", "-e", exe, "0x"+strconv.FormatUint(lookup, 16)).Output()
		if err != nil {
			t.Fatal(err)
		}
		want := strings.SplitN(string(out), "\n", 2)[0]
		if f.Function == nil || *f.Function != want {
			t.Errorf("frame %d: function %v, addr2line %q", i, f.Function, want)
		}
	}
}

// TestCrashInstructionInterpretedCore: the interpreted core's fault is
// walk.s's NULL load (ld8 r9 = [r0]): the report's faulting instruction
// must be the slot the interpreter stopped at, as objdump prints it, with
// its operand's address.
func TestCrashInstructionInterpretedCore(t *testing.T) {
	m, exe, core := ia64.RunToCore(t, false)
	r, err := analyze.Analyze(core, analyze.Options{Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	objdump := testenv.NeedTool(t, "ia64-linux-gnu-objdump")
	bundle := m.IP &^ 0xf
	out, err := exec.Command(objdump, "-d", fmt.Sprintf("--start-address=%#x", bundle), fmt.Sprintf("--stop-address=%#x", bundle+16), exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	slots := regexp.MustCompile(`(?m)^\s*[0-9a-f]+:\t(?:[0-9a-f]{2} )+\s*\t(?:\[[A-Z]+\])?\s*(.*?)(?:;;)?$`).FindAllStringSubmatch(string(out), -1)
	if len(slots) != 3 {
		t.Fatalf("objdump shows %d slots:\n%s", len(slots), out)
	}
	want := strings.TrimSpace(slots[m.IP&3][1])
	c := r.Crash
	if c == nil || c.Instruction == nil {
		t.Fatalf("no faulting instruction: %+v", c)
	}
	in := c.Instruction
	if uint64(in.Address) != m.IP || in.Text != want || want != "ld8 r9=[r0]" {
		t.Errorf("instruction %#x %q; interpreter at %#x, objdump %q", uint64(in.Address), in.Text, m.IP, want)
	}
	if in.MemoryAddress == nil || uint64(*in.MemoryAddress) != m.FaultAt {
		t.Errorf("memory address %v, the interpreter faulted at %#x", in.MemoryAddress, m.FaultAt)
	}
}

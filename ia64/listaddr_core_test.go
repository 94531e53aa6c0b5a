package ia64

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	crossia64 "github.com/coreunwind/coreunwind/internal/crossarch/ia64"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// listAddrFunc is libunwind's exported accessor of the list, appended to
// dynwalk.s: through the linkage table, as gcc compiles it for data not
// in the short data area (dynwalk's .data is too far from gp for a
// 22-bit gp-relative offset), so the address comes from the core's
// memory. A static executable's start code refers to __gp (glibc's
// start.S: movl gp = __gp), which makes the linker define the symbol.
const listAddrFunc = `
	.hidden _U_dyn_info_list
	.text
	.align 16
	.global _U_dyn_info_list_addr
	.proc _U_dyn_info_list_addr
_U_dyn_info_list_addr:
	.prologue
	.body
	addl r14 = @ltoff(_U_dyn_info_list#), gp
	;;
	ld8 r8 = [r14]
	br.ret.sptk.many b0
	.endp _U_dyn_info_list_addr
	.data
	.align 8
gp_ref:	data8 __gp
`

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
			built := crossia64.BuildLinked(t, dir, "dynwalk", string(src)+listAddrFunc, be, true, "_start", fmt.Sprintf("--section-start=.jit=%#x", uint64(jitBase)))
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
			dropTableEntries(t, sf, stripped, exe, jitBase)

			r := &dynRun{m: m, exe: exe, core: filepath.Join(dir, "core"), jit: map[string][2]uint64{}}
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
			r.list = sym["_U_dyn_info_list"]
			r.jit["jit_a"] = [2]uint64{sym["jit_a"], sym["jit_b"]}
			r.jit["jit_b"] = [2]uint64{sym["jit_b"], sym["jit_c"]}
			jitText := f.Section(".jit")
			if r.list == 0 || jitText == nil {
				t.Fatalf("list %#x, .jit %v", r.list, jitText)
			}
			r.jit["jit_c"] = [2]uint64{sym["jit_c"], jitText.Addr + jitText.Size}

			area := m.NewDynArea(sym["dyn_area"], 4096)
			infoAddr, err := area.Put(jitInfoBlock(t, filepath.Join(dir, "dynwalk.o"), f.ByteOrder))
			if err != nil {
				t.Fatal(err)
			}
			seg := uint64(jitBase &^ 0xffff)
			triple := make([]byte, 24)
			m.Order.PutUint64(triple[0:], r.jit["jit_c"][0]-seg)
			m.Order.PutUint64(triple[8:], r.jit["jit_c"][1]-seg)
			m.Order.PutUint64(triple[16:], infoAddr-seg)
			tableAddr, err := area.Put(triple)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.WriteDynList(r.list, 3, area, append(dynwalkProcs(t, r), crossia64.DynEntry{
				Start: r.jit["jit_c"][0], End: r.jit["jit_c"][1], Format: 1, Name: "jit_c.table",
				Segbase: seg, TableLen: 3, TableData: tableAddr,
			})); err != nil {
				t.Fatal(err)
			}
			for _, reg := range m.Mem {
				switch {
				case reg.Base <= jitBase && jitBase < reg.Base+uint64(len(reg.Data)):
					reg.Name = "[jit]"
				case reg.Name == built:
					reg.Name = exe
				}
			}
			if err := m.WriteLinuxCore(r.core, exe, 4344, 11); err != nil {
				t.Fatal(err)
			}

			rep, err := analyze.Analyze(r.core, analyze.Options{Executable: exe})
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

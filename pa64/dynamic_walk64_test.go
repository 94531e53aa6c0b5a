package pa64_test

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/internal/crossarch/hppa"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/report"
)

// dynJitBase is where dyn64.c's .jit section is linked: a segment of its
// own, within b,l range of .text.
const dynJitBase = 0x400000

// dynInsn is one instruction of the generated code as objdump prints it.
type dynInsn struct {
	addr uint64
	text string
}

// dynRun64 is an interpreted run of dyn64.c and what the test knows of it.
type dynRun64 struct {
	prog string
	f    *elf.File
	m    *hppa.Machine
	sym  map[string]uint64
	jit  map[string][]dynInsn // the .jit functions' instructions
}

func runDyn64(t *testing.T) *dynRun64 {
	t.Helper()
	hppa.PA64.Need(t)
	dir := t.TempDir()
	src, _ := filepath.Abs("testdata/progs/dyn64.c")
	prog := hppa.PA64.Build(t, dir, "dyn64", src, append([]string{"-g", "-O1", fmt.Sprintf("-Wl,--section-start=.jit=%#x", dynJitBase)}, hppa.Freestanding...)...)
	f, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	m, err := hppa.NewMachine(f, pa64StackLo, pa64StackSize)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(1 << 20); !errors.Is(err, hppa.ErrSegv) || m.FaultAddr != 0 {
		t.Fatalf("interpreter: %v at pc %#x (fault address %#x); want the null store in leaf", err, m.PC, m.FaultAddr)
	}
	if len(m.CallStack) != 5 {
		t.Fatalf("interpreter call stack %#x: want _start, top, jit_a, jit_b, jit_c", m.CallStack)
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	r := &dynRun64{prog: prog, f: f, m: m, sym: map[string]uint64{}, jit: map[string][]dynInsn{}}
	for _, s := range syms {
		r.sym[s.Name] = s.Value
	}
	out, err := exec.Command(testenv.NeedTool(t, hppa.PA64.Objdump), "-d", "-j", ".jit", prog).Output()
	if err != nil {
		t.Fatalf("objdump -d: %v", err)
	}
	fn := regexp.MustCompile(`^[0-9a-f]+ <(\w+)>:$`)
	ins := regexp.MustCompile(`^\s+([0-9a-f]+):\s+(?:[0-9a-f]{2} ){4}\s*(.*)$`)
	var cur string
	for _, line := range strings.Split(string(out), "\n") {
		if m := fn.FindStringSubmatch(line); m != nil {
			cur = m[1]
		} else if m := ins.FindStringSubmatch(line); m != nil && cur != "" {
			a, _ := strconv.ParseUint(m[1], 16, 64)
			r.jit[cur] = append(r.jit[cur], dynInsn{a, strings.TrimSpace(m[2])})
		}
	}
	for _, n := range []string{"jit_a", "jit_b", "jit_c"} {
		if len(r.jit[n]) == 0 || r.jit[n][0].addr != r.sym[n] {
			t.Fatalf("objdump lacks %s at %#x", n, r.sym[n])
		}
	}
	return r
}

// hexOff parses objdump's signed hex displacement ("-10", "150").
func hexOff(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 16, 64)
	if err != nil {
		t.Fatalf("displacement %q: %v", s, err)
	}
	return v
}

// regNum is a general register's number by objdump's name.
func regNum(t *testing.T, s string) int16 {
	t.Helper()
	switch s {
	case "rp":
		return 2
	case "sp":
		return 30
	}
	n, err := strconv.Atoi(strings.TrimPrefix(s, "r"))
	if err != nil || !strings.HasPrefix(s, "r") {
		t.Fatalf("register %q", s)
	}
	return int16(n)
}

var (
	insStore    = regexp.MustCompile(`^std (r\w+),(-?[0-9a-f]+)\(sp\)$`)
	insStoreMA  = regexp.MustCompile(`^std,ma (r\w+),([0-9a-f]+)\(sp\)$`)
	insAllocate = regexp.MustCompile(`^ldo ([0-9a-f]+)\(sp\),sp$`)
	insRestore  = regexp.MustCompile(`^ldd -?[0-9a-f]+\(sp\),r\w+$`)
)

// describe plays the JIT that emitted fn: libunwind operations for what
// its instructions do, each at the index of its instruction. The
// prologue region holds the saves and the frame allocation; a body
// region labels the state; each epilogue (restores, bve (rp), and the
// frame's removal in the delay slot) is a region ending in POP_FRAMES;
// code after an epilogue copies the labelled state back. An epilogue at
// the end is a region counted from the end.
func describe(t *testing.T, fn []dynInsn) []hppa.DynRegion {
	t.Helper()
	var pro []hppa.DynOp
	n := 0
	for ; n < len(fn); n++ {
		when := int32(n)
		txt := fn[n].text
		if m := insStore.FindStringSubmatch(txt); m != nil && (m[1] == "rp" || regNum(t, m[1]) >= 3 && regNum(t, m[1]) <= 18) {
			pro = append(pro, hppa.DynOp{Tag: hppa.DynSpillSPRel, Reg: regNum(t, m[1]), When: when, Val: uint64(hexOff(t, m[2]))})
		} else if m := insStoreMA.FindStringSubmatch(txt); m != nil {
			pro = append(pro,
				hppa.DynOp{Tag: hppa.DynSpillSPRel, Reg: regNum(t, m[1]), When: when, Val: 0},
				hppa.DynOp{Tag: hppa.DynAdd, Reg: 30, When: when, Val: uint64(hexOff(t, m[2]))})
		} else if m := insAllocate.FindStringSubmatch(txt); m != nil {
			pro = append(pro, hppa.DynOp{Tag: hppa.DynAdd, Reg: 30, When: when, Val: uint64(hexOff(t, m[1]))})
		} else {
			break
		}
	}
	if len(pro) == 0 {
		t.Fatal("no prologue")
	}
	regions := []hppa.DynRegion{{InsnCount: int32(n), Ops: pro}}
	at := n
	label := []hppa.DynOp{{Tag: hppa.DynLabelState, When: -1, Val: 1}}
	for i := n; i < len(fn); i++ {
		if fn[i].text != "bve (rp)" || i+1 >= len(fn) {
			continue
		}
		start := i
		for start > at && insRestore.MatchString(fn[start-1].text) {
			start--
		}
		if start > at {
			regions = append(regions, hppa.DynRegion{InsnCount: int32(start - at), Ops: label})
			label = []hppa.DynOp{{Tag: hppa.DynCopyState, When: -1, Val: 1}}
		}
		epi := hppa.DynRegion{InsnCount: int32(i + 2 - start), Ops: []hppa.DynOp{{Tag: hppa.DynPopFrames, When: int32(i + 1 - start), Val: 1}}}
		if i+2 == len(fn) {
			epi.InsnCount = -epi.InsnCount
		}
		regions = append(regions, epi)
		at = i + 2
	}
	if at < len(fn) {
		regions = append(regions, hppa.DynRegion{InsnCount: int32(len(fn) - at), Ops: label})
	}
	return regions
}

// registerJit writes the registration list into the machine: jit_a and
// jit_b as DYNAMIC procedures, jit_c as a table of the given format
// holding the 16 bytes its .PARISC.unwind entry has in the executable.
func (r *dynRun64) registerJit(t *testing.T, tableFormat int32) {
	t.Helper()
	sec := r.f.Section(".PARISC.unwind")
	data, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	var exeSeg uint64
	for _, p := range r.f.Progs {
		if p.Type == elf.PT_LOAD && sec.Addr >= p.Vaddr && sec.Addr < p.Vaddr+p.Memsz {
			exeSeg = p.Vaddr
		}
	}
	var entry []byte
	for off := 0; off+16 <= len(data); off += 16 {
		if exeSeg+uint64(r.f.ByteOrder.Uint32(data[off:])) == r.sym["jit_c"] {
			entry = bytes.Clone(data[off : off+16])
		}
	}
	if entry == nil {
		t.Fatal("no .PARISC.unwind entry for jit_c")
	}
	// The JIT's own table is relative to its own segment base.
	seg := uint64(dynJitBase)
	for _, k := range []int{0, 4} {
		r.f.ByteOrder.PutUint32(entry[k:], uint32(exeSeg+uint64(r.f.ByteOrder.Uint32(entry[k:]))-seg))
	}
	w := hppa.NewDynWriter(8, r.sym["dyn_area"], 4096, r.m.Write)
	table, err := w.Alloc(entry)
	if err != nil {
		t.Fatal(err)
	}
	end := func(fn string) uint64 { l := r.jit[fn]; return l[len(l)-1].addr + 4 }
	entries := []hppa.DynEntry{
		{Start: r.sym["jit_a"], End: end("jit_a"), Name: "gen.a", Regions: describe(t, r.jit["jit_a"])},
		{Start: r.sym["jit_b"], End: end("jit_b"), Name: "gen.b", Regions: describe(t, r.jit["jit_b"])},
		{Start: r.sym["jit_c"], End: end("jit_c"), Format: tableFormat, Name: "gen.c", Segbase: seg, TableLen: 2, TableData: table},
	}
	if err := w.WriteList(r.sym["_U_dyn_info_list"], 3, entries); err != nil {
		t.Fatal(err)
	}
}

// writeCore writes a Linux core whose NT_FILE leaves the .jit segment
// out: to the analyzer it is anonymous executable memory.
func (r *dynRun64) writeCore(t *testing.T) string {
	t.Helper()
	exe := *r.f
	exe.Progs = nil
	for _, p := range r.f.Progs {
		if !(p.Type == elf.PT_LOAD && p.Vaddr == dynJitBase) {
			exe.Progs = append(exe.Progs, p)
		}
	}
	if len(exe.Progs) == len(r.f.Progs) {
		t.Fatal("no segment at the .jit address")
	}
	core := filepath.Join(t.TempDir(), "core")
	if err := os.WriteFile(core, hppa.LinuxCore64(r.m, &exe, r.prog, 11), 0o644); err != nil {
		t.Fatal(err)
	}
	return core
}

func TestDynamicInfoWalk64(t *testing.T) {
	for _, format := range []int32{1, 2} {
		t.Run([]string{"", "table", "remote_table"}[format], func(t *testing.T) {
			r := runDyn64(t)
			r.registerJit(t, format)
			rep, err := analyze.Analyze(r.writeCore(t), analyze.Options{Executable: r.prog})
			if err != nil {
				t.Fatal(err)
			}
			checkDynWalk(t, r, rep.Threads[0].Frames, rep.Threads[0].Error)
		})
	}
}

func checkDynWalk(t *testing.T, r *dynRun64, frames []report.Frame, thErr *string) {
	t.Helper()
	want := []uint64{r.m.PC}
	for i := len(r.m.CallStack) - 1; i >= 0; i-- {
		want = append(want, r.m.CallStack[i])
	}
	var got []uint64
	for _, f := range frames {
		got = append(got, uint64(f.PC))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("frames %#x, interpreter %#x (error %v)", got, want, deref(thErr))
	}
	names := []string{"leaf", "gen.c", "gen.b", "gen.a", "top", "_start"}
	// Frames 2..4 are found through registered info (gen.c's table,
	// gen.b's and gen.a's operations).
	trusts := []string{"context", "unwind_table", "dynamic", "dynamic", "dynamic", "unwind_table"}
	for i := range names {
		if frames[i].Function == nil || *frames[i].Function != names[i] {
			t.Errorf("frame %d: function %v, want %s", i, deref(frames[i].Function), names[i])
		}
		if frames[i].Trust != trusts[i] {
			t.Errorf("frame %d: trust %s, want %s", i, frames[i].Trust, trusts[i])
		}
	}
	if thErr != nil {
		t.Errorf("thread error: %s", *thErr)
	}
}

// Without the registration the generated frames cannot be walked: the
// walk above owes them to the list.
func TestDynamicInfoWalk64Unregistered(t *testing.T) {
	r := runDyn64(t)
	rep, err := analyze.Analyze(r.writeCore(t), analyze.Options{Executable: r.prog})
	if err != nil {
		t.Fatal(err)
	}
	frames := rep.Threads[0].Frames
	if len(frames) > 2 && uint64(frames[len(frames)-1].PC) == r.m.CallStack[0] {
		t.Errorf("reached _start without registered info: %d frames", len(frames))
	}
}

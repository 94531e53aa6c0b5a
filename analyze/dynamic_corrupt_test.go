package analyze

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
)

// TestDynamicCorruptList: the registration list in a real core is
// corrupted (the list made a cycle, a region given 2^31 operations). The
// report warns, names still come from the list, and the unwind goes on
// through the static information and the fallbacks.
func TestDynamicCorruptList(t *testing.T) {
	prog := buildDynamicJIT(t)
	outPath := filepath.Join(filepath.Dir(prog), "expect")
	core, _ := testenv.Crash(t, prog, "dynamic", outPath)

	c, err := corefile.Open(core, corefile.Options{Executable: prog})
	if err != nil {
		t.Fatal(err)
	}
	objs := elfx.NewCache()
	defer objs.Close()
	tg, _ := newTarget(c, objs, nil, false)
	listAddr, err := tg.DynInfoListAddr()
	if err != nil {
		t.Fatalf("list not found: %v (warnings %q)", err, tg.jitWarnings())
	}
	x, warns, err := unwind.ReadDynList(tg, listAddr, unwind.DefaultDynLimits)
	if err != nil || len(warns) > 0 || len(x.Infos) != 5 {
		t.Fatalf("reading the intact list: %v %v, %d entries", err, warns, len(x.Infos))
	}
	var regions uint64
	for _, d := range x.Infos {
		if d.Name() == "jit_B_dynamic_nofp" {
			// u.pi.regions of the entry: offset 56+24 on x86-64.
			var b [8]byte
			if err := tg.ReadMem(d.Addr+80, b[:]); err != nil {
				t.Fatal(err)
			}
			regions = binary.LittleEndian.Uint64(b[:])
		}
	}
	c.Close()

	img, err := os.ReadFile(core)
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.Open(core)
	if err != nil {
		t.Fatal(err)
	}
	patch := func(addr uint64, v []byte) {
		for _, p := range ef.Progs {
			if p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr+uint64(len(v)) <= p.Vaddr+p.Filesz {
				copy(img[p.Off+addr-p.Vaddr:], v)
				return
			}
		}
		t.Fatalf("%#x is not in the core", addr)
	}
	ef.Close()
	le := binary.LittleEndian
	last := x.Infos[len(x.Infos)-1].Addr
	patch(last, le.AppendUint64(nil, x.Infos[0].Addr)) // the last entry links to the first
	patch(regions+12, le.AppendUint32(nil, 1<<31))     // op_count
	bad := filepath.Join(t.TempDir(), "core.corrupt")
	if err := os.WriteFile(bad, img, 0o644); err != nil {
		t.Fatal(err)
	}

	r, frames := crashedFrames(t, bad, Options{Executable: prog})
	dumpFrames(t, frames)
	all := strings.Join(r.Warnings, "\n")
	if !strings.Contains(all, "cycle") || !strings.Contains(all, "op_count") {
		t.Errorf("warnings do not report the cycle and the count:\n%s", all)
	}
	names := map[string]bool{}
	for _, f := range frames {
		names[fname(f)] = true
	}
	for _, want := range []string{"crash_cb", "jit_D_table_nofp", "jit_B_dynamic_nofp", "main"} {
		if !names[want] {
			t.Errorf("no frame %s", want)
		}
	}
}

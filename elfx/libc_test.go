package elfx

import (
	"debug/elf"
	"path/filepath"
	"sort"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// libcPath is the system C library, whose separate debug file libc6-dbg
// installs under /usr/lib/debug/.build-id.
func libcWithDebug(t testing.TB) *Object {
	t.Helper()
	paths, _ := filepath.Glob("/lib/*-linux-gnu/libc.so.6")
	if len(paths) == 0 {
		testenv.Unavailable(t, "no libc.so.6")
	}
	o := mustOpen(t, paths[0])
	if _, err := o.AttachDebugFile(nil); err != nil {
		testenv.Unavailable(t, "libc debug file (libc6-dbg) not installed: "+err.Error())
	}
	return o
}

// sampleFunctions picks up to n FUNC symbols of f spread evenly over the
// table, and for each a few addresses inside it.
func sampleAddrs(t testing.TB, f *elf.File, n int) []uint64 {
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var funcs []elf.Symbol
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 && s.Value != 0 {
			funcs = append(funcs, s)
		}
	}
	sort.Slice(funcs, func(i, j int) bool { return funcs[i].Value < funcs[j].Value })
	var addrs []uint64
	step := max(1, len(funcs)/n)
	for i := 0; i < len(funcs); i += step {
		s := funcs[i]
		for _, frac := range []uint64{0, 1, 3, 5, 7} {
			addrs = append(addrs, s.Value+s.Size*frac/8)
		}
	}
	return addrs
}

func TestLibcSourceFramesMatchAddr2line(t *testing.T) {
	o := libcWithDebug(t)
	if o.DebugFile() == "" || o.BuildID() == "" {
		t.Fatalf("debug file %q, build ID %q", o.DebugFile(), o.BuildID())
	}
	dbg := mustOpen(t, o.DebugFile())
	addrs := sampleAddrs(t, dbg.ELF(), 400)
	// addr2line reads the debug file directly: it has the same layout.
	inl := compareWithAddr2line(t, o, o.DebugFile(), addrs)
	t.Logf("%d addresses, %d with inline chains", len(addrs), inl)
	if inl == 0 {
		t.Error("no inline chains in libc: the sample is not exercising inlining")
	}
}

func TestLibcSymbols(t *testing.T) {
	o := libcWithDebug(t)
	// .symtab comes from the debug file: local functions and
	// __restore_rt (the signal trampoline) are only there.
	for _, name := range []string{"__restore_rt", "malloc", "printf", "_IO_new_file_overflow"} {
		s, ok := o.LookupSymbol(name)
		if !ok {
			t.Errorf("LookupSymbol(%q) not found", name)
			continue
		}
		got, ok := o.Symbol(s.Addr + s.Size/2)
		if !ok || got.Addr != s.Addr {
			t.Errorf("Symbol(%s+%d) = %+v, %v; want the symbol at %#x", name, s.Size/2, got, ok, s.Addr)
		}
	}
	// FDEs: __restore_rt's is a signal frame ('S' augmentation), and
	// malloc's covers malloc.
	s, _ := o.LookupSymbol("malloc")
	fde, err := o.FindFDE(s.Addr + 4)
	if err != nil || fde.Begin > s.Addr+4 || fde.End <= s.Addr+4 {
		t.Errorf("FindFDE(malloc+4) = %+v, %v", fde, err)
	}
	rt, _ := o.LookupSymbol("__restore_rt")
	// The FDE of __restore_rt starts one byte early (the nop before it),
	// so that return address - 1 lookups land in it.
	if fde, err := o.FindFDE(rt.Addr); err != nil || !fde.Signal() {
		t.Errorf("FindFDE(__restore_rt) = %+v, %v; want a signal frame", fde, err)
	}
}

package elfx

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// FuzzOpen feeds arbitrary images to NewObject and exercises every lazy
// parser on addresses taken from the input. Nothing may panic, hang or
// allocate beyond what the input holds.
func FuzzOpen(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) { exerciseWithin(t, data, 10*time.Second) })
}

// exerciseWithin is exerciseObject on data, failing t when it takes
// longer than limit: a hang must become a reported crasher, not a
// stalled fuzzer.
func exerciseWithin(t *testing.T, data []byte, limit time.Duration) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		exerciseObject(data)
	}()
	select {
	case <-done:
	case <-time.After(limit):
		buf := make([]byte, 1<<20)
		t.Fatalf("hang:\n%s", buf[:runtime.Stack(buf, true)])
	}
}

// FuzzOpenGo is FuzzOpen seeded with a Go program (.gopclntab, its
// moduledata, a zlib-compressed .debug_frame and DWARF), whose size
// would slow FuzzOpen's small seeds.
func FuzzOpenGo(f *testing.F) {
	f.Add([]byte("\x7fELF\x02\x01\x01\x00"))
	goTool, err := exec.LookPath("go")
	if err == nil {
		dir := f.TempDir()
		src, out := filepath.Join(dir, "main.go"), filepath.Join(dir, "goprog")
		os.WriteFile(src, []byte("package main\n\nfunc main() { println(1) }\n"), 0o644)
		cmd := exec.Command(goTool, "build", "-o", out, src)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if cmd.Run() == nil {
			if b, err := os.ReadFile(out); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { exerciseWithin(t, data, 30*time.Second) })
}

// exerciseObject runs every parser on one input, read through a reader
// and, as Open maps a file (compressed sections inflated by elfx's own
// inflater, Go code named from .gopclntab), from a file.
func exerciseObject(data []byte) {
	if o, err := NewObject(bytes.NewReader(data), int64(len(data)), "fuzz"); err == nil {
		exerciseParsers(o, data)
		o.Close()
	}
	f, err := os.CreateTemp("", "elfx-fuzz-")
	if err != nil {
		return
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	f.Close()
	if err != nil {
		return
	}
	if o, err := Open(f.Name()); err == nil {
		exerciseParsers(o, data)
		o.Close()
	}
}

// exerciseParsers runs every parser of o on addresses taken from data.
func exerciseParsers(o *Object, data []byte) {
	{
		_ = o.BuildID()
		_ = o.LoadSegments()
		addrs := []uint64{0, 1, 0x1000}
		for i := 0; i+8 <= len(data) && len(addrs) < 12; i += len(data)/8 + 1 {
			addrs = append(addrs, binary.LittleEndian.Uint64(data[i:])%(1<<20))
		}
		for _, s := range o.ELF().Sections {
			addrs = append(addrs, s.Addr, s.Addr+s.Size/2)
		}
		// The first lookups scan the raw tables (symscan.go), the
		// later ones build the sorted table.
		o.LookupSymbol("f")
		for _, a := range addrs {
			o.Symbol(a)
			o.SourceFrames(a)
			o.FunctionEntry(a)
			o.CallSiteAt(a)
			o.TailCalls(a)
			o.FindFDE(a)
		}
		o.LookupSymbol("main")
		o.LookupRawSymbol("main")
		o.LookupRawSymbol("runtime.goexit")
		o.LookupRawSymbols([]string{"main", "runtime.goexit", ""})
		o.DataSymbols(func(DataSymbol) {})
		o.WarmFor(addrs)
		_ = o.DWARFRead()
		o.SymbolValues("main", "f", "_U_dyn_info_list") // .gnu.hash, then a scan
		for _, tab := range []elf.SectionType{elf.SHT_DYNSYM, elf.SHT_SYMTAB} {
			o.DefinedSymbol(tab, "main", elf.STT_FUNC)
			o.DefinedSymbol(tab, "f", elf.STT_FUNC)
		}
		o.UnwindTables()
	}
}

// fuzzSeeds are small real binaries built now (with inlined calls, calls
// and a tail call for the call-site records): C with DWARF 4 and 5,
// stripped, with .debug_frame only, and a truncated copy.
func fuzzSeeds(f *testing.F) [][]byte {
	seeds := [][]byte{[]byte("\x7fELF\x02\x01\x01\x00")}
	if _, err := exec.LookPath("gcc"); err != nil {
		return seeds
	}
	dir := f.TempDir()
	src := filepath.Join(dir, "s.c")
	os.WriteFile(src, []byte(`static inline int g(int x){return x*3;} __attribute__((noinline)) int f(int x){return g(x)+1;} __attribute__((noinline)) int h(int x){return f(x+1);} int main(int c,char**v){return h(c)*f(c);}`), 0o644)
	for i, flags := range [][]string{
		{"-O2", "-g", "-gdwarf-4"},
		{"-O2", "-g", "-gdwarf-5", "-fno-asynchronous-unwind-tables"},
		{"-O2", "-s"},
		{"-O2", "-g", "-gz=zlib"},
		{"-O2", "-shared", "-fPIC"}, // .dynsym and its GNU hash table
	} {
		out := filepath.Join(dir, "s"+string(rune('0'+i)))
		args := append(append([]string{}, flags...), "-nostartfiles", "-nostdlib", "-e", "main", "-o", out, src)
		if err := exec.Command("gcc", args...).Run(); err != nil {
			continue
		}
		if b, err := os.ReadFile(out); err == nil {
			seeds = append(seeds, b)
			if i == 0 {
				seeds = append(seeds, b[:len(b)*2/3])
			}
		}
	}
	// Big-endian ppc64 (ELFv1): function symbols are .opd descriptors.
	out := filepath.Join(dir, "opd")
	if exec.Command("powerpc64-linux-gnu-gcc", "-O2", "-nostartfiles", "-nostdlib", "-e", "main", "-o", out, src).Run() == nil {
		if b, err := os.ReadFile(out); err == nil {
			seeds = append(seeds, b)
		}
	}
	return seeds
}

// FuzzDemangle: any symbol name demangles to something or comes back
// unchanged; the legacy Rust reader never panics and never reads past
// its input.
func FuzzDemangle(f *testing.F) {
	for _, s := range []string{
		"_ZN3std10sys_common11thread_info11THREAD_INFO7__getit17h1f2d3e7db64f38aaE.llvm.14675764578384208085",
		"_ZN3std9backtrace28_$u7b$$u7b$closure$u7d$$u7d$17h25c7d2af286a01e6E",
		"_ZN58_$LT$alloc..string..String$u20$as$u20$core..fmt..Debug$GT$3fmt17h0123456789abcdefE",
		"_ZN4core3ptr13drop_in_place17h0000000000000000E",
		"_ZNSt6vectorIiSaIiEE9push_backERKi",
		"_RNvCs1234_7mycrate4main",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if Demangle(name) == "" && name != "" && !strings.HasPrefix(name, "@") {
			t.Fatalf("Demangle(%q) is empty", name)
		}
		demangleRustLegacy(name)
	})
}

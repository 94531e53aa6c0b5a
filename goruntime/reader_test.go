package goruntime

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// goProgram is a small Go program the tests build: its symbols and
// DWARF give the real layout of runtime.g for the Go that builds it (a
// test binary has no DWARF).
const goProgram = `package main

func main() { println("hello") }
`

var (
	buildOnce sync.Once
	builtExe  string
	buildErr  error
)

// selfBinary builds goProgram once and describes it.
func selfBinary(t testing.TB) Binary {
	t.Helper()
	gotool := testenv.NeedTool(t, "go")
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "goruntime-test-")
		if err != nil {
			buildErr = err
			return
		}
		src := filepath.Join(dir, "main.go")
		if buildErr = os.WriteFile(src, []byte(goProgram), 0o644); buildErr != nil {
			return
		}
		builtExe = filepath.Join(dir, "prog")
		out, err := exec.Command(gotool, "build", "-o", builtExe, src).CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	exe := builtExe
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	d, err := f.DWARF()
	if err != nil {
		t.Fatalf("the test binary has no DWARF: %v", err)
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	b := Binary{Symbols: map[string]uint64{}, DWARF: d, PtrSize: 8, Order: binary.LittleEndian}
	if f.Class == elf.ELFCLASS32 {
		b.PtrSize = 4
	}
	if f.ByteOrder == binary.BigEndian {
		b.Order = binary.BigEndian
	}
	for _, s := range syms {
		for _, n := range SymbolNames {
			if s.Name == n {
				b.Symbols[n] = s.Value
			}
		}
	}
	return b
}

// fakeMemory is an address space of a few byte regions.
type fakeMemory struct {
	regions map[uint64][]byte // by start address
}

var errUnmapped = errors.New("unmapped")

func (m *fakeMemory) ReadMem(addr uint64, p []byte) error {
	for s, b := range m.regions {
		if addr >= s && addr-s <= uint64(len(b)) && uint64(len(p)) <= uint64(len(b))-(addr-s) {
			copy(p, b[addr-s:])
			return nil
		}
	}
	return errUnmapped
}

// builder lays out a fake Go heap for a reader's layout.
type builder struct {
	r   *Reader
	mem *fakeMemory
}

func (b *builder) put(addr uint64, data []byte) { b.mem.regions[addr] = data }

func (b *builder) words(vs ...uint64) []byte {
	out := make([]byte, 8*len(vs))
	for i, v := range vs {
		b.r.b.Order.PutUint64(out[8*i:], v)
	}
	return out
}

// g returns the bytes of a g.
func (b *builder) g(id uint64, status Status, reason uint8, pc, sp uint64) []byte {
	l := &b.r.layout
	buf := make([]byte, l.size)
	o := b.r.b.Order
	o.PutUint64(buf[l.goid:], id)
	o.PutUint32(buf[l.status:], uint32(status))
	buf[l.waitReason] = reason
	o.PutUint64(buf[l.schedPC:], pc)
	o.PutUint64(buf[l.schedSP:], sp)
	o.PutUint64(buf[l.stackLo:], sp&^0xfff)
	o.PutUint64(buf[l.stackHi:], sp&^0xfff+0x1000)
	return buf
}

func newBuilder(t testing.TB) *builder {
	t.Helper()
	bin := selfBinary(t)
	if bin.PtrSize != 8 {
		t.Skip("the fake heap is laid out for 64-bit targets")
	}
	r, err := NewReader(bin)
	if err != nil {
		t.Fatal(err)
	}
	return &builder{r: r, mem: &fakeMemory{regions: map[uint64][]byte{}}}
}

func TestGoroutinesFromFakeHeap(t *testing.T) {
	b := newBuilder(t)
	syms := b.r.b.Symbols
	// allgs: five g pointers; the third points nowhere; the fifth is
	// a cgo program's g kept dead for an extra m (Go 1.26's
	// _Gdeadextra), which the runtime leaves out as it does a dead one.
	const list, g1, g2, g4, g5 = 0x10000, 0x20000, 0x21000, 0x23000, 0x24000
	b.put(syms[SymAllgs], b.words(list, 5, 5))
	b.put(list, b.words(g1, g2, 0xdead0000, g4, g5))
	b.put(g1, b.g(1, StatusRunning, 0, 0x401000, 0xc000100f00))
	b.put(g2, b.g(7, StatusWaiting|statusScan, 3, 0x402000, 0xc000200f00))
	b.put(g4, b.g(9, StatusDead, 0, 0, 0))
	b.put(g5, b.g(17, StatusDeadExtra|statusScan, 0, 0, 0))
	// waitReasonStrings[3] = "chan receive".
	const str = 0x30000
	b.put(syms[SymWaitReasonStrings]+3*16, b.words(str, 12))
	b.put(str, []byte("chan receive"))

	gs, warnings := b.r.Goroutines(b.mem)
	if len(gs) != 2 {
		t.Fatalf("%d goroutines, want 2 (two dead, one unreadable): %+v", len(gs), gs)
	}
	if g := gs[0]; g.ID != 1 || g.State() != "running" || g.PC != 0x401000 || g.SP != 0xc000100f00 || g.Addr != g1 {
		t.Errorf("first goroutine %+v", g)
	}
	if g := gs[1]; g.ID != 7 || g.State() != "chan receive" || g.StackLo != 0xc000200000 || g.StackHi != 0xc000201000 {
		t.Errorf("second goroutine %+v, state %q", g, g.State())
	}
	if len(warnings) != 1 {
		t.Errorf("warnings %q, want one for the unreadable g", warnings)
	}
}

func TestGoroutinesBounded(t *testing.T) {
	b := newBuilder(t)
	// A list claiming 2^40 entries of which none is readable: the
	// reader stops at MaxGoroutines and says so, with few warnings.
	b.put(b.r.b.Symbols[SymAllgs], b.words(0x10000, 1<<40, 1<<40))
	gs, warnings := b.r.Goroutines(b.mem)
	if len(gs) != 0 || len(warnings) > maxWarnings+2 {
		t.Fatalf("%d goroutines, %d warnings: %q", len(gs), len(warnings), warnings)
	}
}

func TestNotGo(t *testing.T) {
	if _, err := NewReader(Binary{Symbols: map[string]uint64{}}); err == nil {
		t.Fatal("a program without runtime.buildVersion is taken for Go")
	}
}

func TestPanicValue(t *testing.T) {
	b := newBuilder(t)
	if !b.r.panic.ok {
		t.Fatal("no panic layout in the DWARF of a Go program")
	}
	syms := b.r.b.Symbols
	pl := &b.r.panic
	const gAddr, panicAddr, typ, data, str, types = 0x20000, 0x40000, 0x50000, 0x60000, 0x70000, 0x80000
	// g._panic -> _panic{arg: (typ, data)}; data -> "boom".
	g := b.g(1, StatusRunning, 0, 0x401000, 0xc000100f00)
	b.r.b.Order.PutUint64(g[pl.gPanic:], panicAddr)
	b.put(gAddr, g)
	b.put(panicAddr+uint64(pl.panicArg), b.words(typ, data))
	b.put(data, b.words(str, 4))
	b.put(str, []byte("boom"))
	// The type: kind string, named "runtime.errorString" at types+0x10.
	tb := make([]byte, pl.typeStr+8)
	tb[pl.typeKind] = kindString
	b.r.b.Order.PutUint32(tb[pl.typeStr:], 0x10)
	b.put(typ, tb)
	b.put(syms[SymFirstModuledata]+uint64(pl.moduleTypes), b.words(types))
	name := "runtime.errorString"
	b.put(types+0x10, append([]byte{0, byte(len(name))}, name...))

	gr := Goroutine{ID: 1, Addr: gAddr}
	if msg, ok := b.r.Panic(b.mem, &gr); !ok || msg != "runtime error: boom" {
		t.Errorf("panic %q, %v; want \"runtime error: boom\"", msg, ok)
	}
	// Not panicking: _panic is nil.
	b.r.b.Order.PutUint64(g[pl.gPanic:], 0)
	if msg, ok := b.r.Panic(b.mem, &gr); ok {
		t.Errorf("a goroutine without a _panic panics with %q", msg)
	}
}

package corefile

import (
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/minidump"
)

// minidumpSeed is a real minidump: Breakpad's core2md's of a kernel core
// of e2e's mdcrash.c (4 threads, a NULL store).
const minidumpSeed = "../minidump/testdata/core2md-x86_64.dmp"

// TestOpenMinidump: a minidump opens as a core whose threads, registers,
// signal, mappings and module build IDs are the minidump's.
func TestOpenMinidump(t *testing.T) {
	data, err := os.ReadFile(minidumpSeed)
	if err != nil {
		t.Fatal(err)
	}
	d, err := minidump.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	c, err := OpenBytes(data, Options{Sysroot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Format != "minidump" || c.Arch != "x86_64" || c.PtrSize() != 8 || c.OS != "linux" {
		t.Errorf("format %q arch %q ptr %d os %q", c.Format, c.Arch, c.PtrSize(), c.OS)
	}
	if len(c.Threads) != len(d.Threads) {
		t.Fatalf("%d threads, the minidump has %d", len(c.Threads), len(d.Threads))
	}
	for i, th := range c.Threads {
		ctx := d.Threads[i].Context
		if int(d.Threads[i].ID) == c.CrashedTID {
			ctx = d.Exception.Context
		}
		if th.TID != int(d.Threads[i].ID) || c.order.Uint64(th.GRegs[16*8:]) != ctx.PC() || c.order.Uint64(th.GRegs[19*8:]) != ctx.SP() {
			t.Errorf("thread %d: tid %d rip %#x rsp %#x, the minidump: %d %#x %#x", i, th.TID,
				c.order.Uint64(th.GRegs[16*8:]), c.order.Uint64(th.GRegs[19*8:]), d.Threads[i].ID, ctx.PC(), ctx.SP())
		}
		// The stack is readable where the thread's stack pointer is.
		var w [8]byte
		if err := c.ReadMem(c.order.Uint64(th.GRegs[19*8:]), w[:]); err != nil {
			t.Errorf("thread %d: stack: %v", th.TID, err)
		}
	}
	if c.CrashedTID != int(d.Exception.ThreadID) || c.Signal == nil || c.Signal.Number != int(d.Exception.Code) {
		t.Errorf("crashed %d signal %+v, the exception stream: thread %d code %d", c.CrashedTID, c.Signal, d.Exception.ThreadID, d.Exception.Code)
	}
	if c.Signal != nil && c.Signal.Detailed {
		t.Errorf("core2md records no si_code (flags 0): the signal must not claim one")
	}
	if c.PID == 0 || c.CommandLine == "" || len(c.Auxv) == 0 || len(c.Mappings) == 0 {
		t.Errorf("pid %d command %q, %d auxv entries, %d mappings", c.PID, c.CommandLine, len(c.Auxv), len(c.Mappings))
	}
	ids := 0
	for _, m := range c.Modules {
		want := ""
		for _, dm := range d.Modules {
			if dm.Base >= m.Start && dm.Base < m.End {
				want = dm.BuildID()
			}
		}
		if m.BuildID != want {
			t.Errorf("module %s: build ID %q, the module list says %q", m.Path, m.BuildID, want)
		}
		if m.BuildID != "" {
			ids++
		}
	}
	if ids < 2 {
		t.Errorf("%d modules with build IDs, want the executable's, libc's and ld.so's", ids)
	}
}

// withStreams returns the minidump data with streams added after its
// end and a new directory (the old entries, then the new ones); an old
// stream of a type added is renamed away so that the new one is read.
func withStreams(data []byte, add map[minidump.StreamType][]byte) []byte {
	le := binary.LittleEndian
	out := append([]byte(nil), data...)
	n, dirRVA := le.Uint32(out[8:]), le.Uint32(out[12:])
	var dir []byte
	for i := uint32(0); i < n; i++ {
		e := append([]byte(nil), out[dirRVA+12*i:dirRVA+12*i+12]...)
		if _, replaced := add[minidump.StreamType(le.Uint32(e))]; replaced {
			le.PutUint32(e, 0xffff) // an unknown type: ignored
		}
		dir = append(dir, e...)
	}
	for t, b := range add {
		rva := uint32(len(out))
		out = append(out, b...)
		dir = le.AppendUint32(dir, uint32(t))
		dir = le.AppendUint32(dir, uint32(len(b)))
		dir = le.AppendUint32(dir, rva)
	}
	le.PutUint32(out[8:], n+uint32(len(add)))
	le.PutUint32(out[12:], uint32(len(out)))
	return append(out, dir...)
}

// TestOpenMinidumpManyMappings: hundreds of thousands of maps lines,
// memory ranges and modules (a hostile dump's, or a huge process's) open
// in time proportional to their number, not to its square.
func TestOpenMinidumpManyMappings(t *testing.T) {
	data, err := os.ReadFile(minidumpSeed)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200000
	le := binary.LittleEndian
	var maps strings.Builder
	mem := le.AppendUint32(nil, n)
	mods := le.AppendUint32(nil, n)
	for i := uint64(0); i < n; i++ {
		fmt.Fprintf(&maps, "%x-%x r-xp 00000000 08:01 1 /lib/l%d.so\n", 0x10000000+i*0x2000, 0x10000000+i*0x2000+0x1000, i)
		mem = le.AppendUint64(mem, 0x10000000+i*0x2000+0x800)
		mem = le.AppendUint32(mem, 16)
		mem = le.AppendUint32(mem, 0) // the header's bytes
		m := make([]byte, 108)
		le.PutUint64(m, 0x10000000+i*0x2000)
		le.PutUint32(m[8:], 0x1000)
		mods = append(mods, m...)
	}
	big := withStreams(data, map[minidump.StreamType][]byte{
		minidump.LinuxMaps: []byte(maps.String()), minidump.MemoryListStream: mem, minidump.ModuleListStream: mods})
	// CPU time, not wall time: the test machine may be busy.
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	before := cpu()
	c, err := OpenBytes(big, Options{Sysroot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if d := cpu() - before; d > 20*time.Second {
		t.Errorf("opening took %v of CPU", d)
	}
	if len(c.Segments) < 2*n {
		t.Errorf("%d segments, want the %d dumped ranges and the rest of the %d mappings", len(c.Segments), n, n)
	}
}

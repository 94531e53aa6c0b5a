package corefile

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/elfcore"
	"github.com/coreunwind/coreunwind/unwind"
)

// syntheticSeeds returns small cores covering both classes and byte
// orders, for the fuzzers.
func syntheticSeeds() [][]byte {
	be, le := binary.BigEndian, binary.LittleEndian
	var file []byte
	for _, v := range []uint64{2, 4096, 0x20000, 0x21000, 0, 0x30000, 0x31000, 1} {
		file = le.AppendUint64(file, v)
	}
	file = append(file, "/lib/a.so\x00/lib/b.so\x00"...)
	auxv := le.AppendUint64(le.AppendUint64(nil, AT_SYSINFO_EHDR), 0x20000)
	siginfo := make([]byte, 128)
	put(siginfo, le, 0, 4, 11)
	put(siginfo, le, 8, 4, 1)
	img := elfImage(elf.ELFCLASS64, le, elf.EM_X86_64, []byte{1, 2, 3, 4}, "x", 0x400)
	x := &elfcore.File{Class: elf.ELFCLASS64, Order: le, Machine: elf.EM_X86_64,
		Notes: []elfcore.Note{
			{Name: "CORE", Type: NTPrstatus, Desc: make([]byte, 336)},
			{Name: "CORE", Type: NTPrpsinfo, Desc: make([]byte, 136)},
			{Name: "CORE", Type: NTSiginfo, Desc: siginfo},
			{Name: "CORE", Type: NTAuxv, Desc: auxv},
			{Name: "CORE", Type: NTFile, Desc: file},
			{Name: "CORE", Type: NTFPRegset, Desc: make([]byte, 512)},
			{Name: "LINUX", Type: NTX86XState, Desc: make([]byte, 64)},
		},
		Segments: []elfcore.Segment{{Vaddr: 0x20000, Memsz: 0x1000, Flags: elf.PF_R | elf.PF_X, Data: img}},
	}
	h := &elfcore.File{Class: elf.ELFCLASS32, Order: be, Machine: elf.EM_PARISC, OSABI: elf.ELFOSABI_LINUX,
		Notes:    []elfcore.Note{{Name: "CORE", Type: NTPrstatus, Desc: hppa32Prstatus(be, 5, 10, 1)}, {Name: "CORE", Type: NTPrpsinfo, Desc: make([]byte, 124)}},
		Segments: []elfcore.Segment{{Vaddr: 0x1000, Memsz: 0x2000, Flags: elf.PF_R, Data: make([]byte, 0x100)}}}
	// The same process as a core without NT_FILE (as qemu-user writes
	// them): the executable is placed from the auxiliary vector.
	var placedAuxv []byte
	for _, v := range []uint64{AT_PHDR, 0x20040, AT_PHNUM, 2, AT_PHENT, 56, AT_ENTRY, 0x20000, AT_PAGESZ, 4096} {
		placedAuxv = le.AppendUint64(placedAuxv, v)
	}
	p := &elfcore.File{Class: elf.ELFCLASS64, Order: le, Machine: elf.EM_AARCH64,
		Notes:    []elfcore.Note{{Name: "CORE", Type: NTPrstatus, Desc: make([]byte, 392)}, {Name: "CORE", Type: NTPrpsinfo, Desc: make([]byte, 136)}, {Name: "CORE", Type: NTAuxv, Desc: placedAuxv}},
		Segments: x.Segments}
	return [][]byte{x.Bytes(), h.Bytes(), p.Bytes()}
}

// realCoreSeed crashes the test program once and returns the start of its
// core (headers, notes and the first segment), or nil when cores cannot be
// made here. It is kept small: the fuzzer minimizes new inputs byte by
// byte, which takes minutes on a whole core (run with -fuzzminimizetime).
func realCoreSeed(t testing.TB) []byte {
	if _, err := exec.LookPath("gcc"); err != nil {
		return nil
	}
	if b, _ := os.ReadFile("/proc/sys/kernel/core_pattern"); string(bytes.TrimSpace(b)) != "core" {
		return nil
	}
	prog := buildC(t, t.TempDir(), "crash")
	core, _ := crash(t, prog, "segv", "1")
	b, err := os.ReadFile(core)
	if err != nil {
		return nil
	}
	h, err := parseFileHeader(b)
	if err != nil {
		return nil
	}
	phs, _ := parseProgHeaders(b[h.Phoff:], h, h.Phnum, h.Phoff)
	end := uint64(len(b))
	for _, ph := range phs {
		if ph.Type == elf.PT_LOAD && ph.Filesz > 0 {
			end = min(end, ph.Off+min(ph.Filesz, 4096))
			break
		}
	}
	return b[:end]
}

func FuzzParseNotes(f *testing.F) {
	for _, s := range syntheticSeeds() {
		h, _ := parseFileHeader(s)
		phs, _ := parseProgHeaders(s[h.Phoff:], h, h.Phnum, h.Phoff)
		for _, ph := range phs {
			if ph.Type == elf.PT_NOTE {
				f.Add(s[ph.Off:ph.Off+ph.Filesz], uint8(4), h.Order == binary.BigEndian)
			}
		}
	}
	f.Add(elfcore.EncodeNotes([]elfcore.Note{{Name: "GNU", Type: 3, Desc: []byte{1, 2, 3, 4, 5}}}, binary.LittleEndian, 8), uint8(8), false)
	// Damaged name sizes (the resync after a malformed note): a name
	// without its NUL, one that runs into the descriptor.
	for _, namesz := range []uint32{4, 69} {
		b := elfcore.EncodeNotes([]elfcore.Note{
			{Name: "CORE", Type: NTPrstatus, Desc: make([]byte, 112)},
			{Name: "LINUX", Type: NTX86XState, Desc: []byte{0x7f, 3, 0, 0}},
			{Name: "CORE", Type: NTPrstatus, Desc: make([]byte, 112)},
		}, binary.LittleEndian, 4)
		binary.LittleEndian.PutUint32(b, namesz)
		f.Add(b, uint8(4), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, align uint8, big bool) {
		var order binary.ByteOrder = binary.LittleEndian
		if big {
			order = binary.BigEndian
		}
		notes, err := ParseNotes(data, order, int(align))
		var fe *FormatError
		if err != nil && !errors.As(err, &fe) {
			t.Fatalf("error is not a *FormatError: %v", err)
		}
		for _, n := range notes {
			if n.Off >= uint64(len(data)) || len(n.Desc) > len(data) {
				t.Fatalf("note %+v outside the %d input bytes", n, len(data))
			}
			for _, dec := range []int{4, 8} {
				parsePrstatus(n.Desc, order, dec)
				parsePrpsinfo(n.Desc, order, dec)
				parseSiginfo(n.Desc, order, dec, elf.EM_X86_64)
				parseAuxv(n.Desc, order, dec)
				parseNTFile(n.Desc, order, dec)
			}
		}
	})
}

func FuzzOpenCore(f *testing.F) {
	for _, s := range syntheticSeeds() {
		f.Add(s)
	}
	if seed := realCoreSeed(f); seed != nil {
		f.Add(seed)
	}
	// A minidump (Breakpad's core2md's): the minidump reader's streams
	// as a core.
	if md, err := os.ReadFile(minidumpSeed); err == nil {
		f.Add(md)
	} else {
		f.Fatal(err)
	}
	sysroot := f.TempDir()
	// One overlay file, so the file path of ReadMem is exercised too.
	os.MkdirAll(filepath.Join(sysroot, "lib"), 0o755)
	os.WriteFile(filepath.Join(sysroot, "lib/a.so"), elfImage(elf.ELFCLASS64, binary.LittleEndian, elf.EM_X86_64, []byte{1, 2, 3, 4}, "x", 0x2000), 0o644)
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		c, err := OpenBytes(data, Options{Sysroot: sysroot})
		if d := time.Since(start); d > 10*time.Second { // generous: a hang, not a loaded machine
			t.Fatalf("OpenBytes took %v on %d bytes", d, len(data))
		}
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 64)
		probe := func(a uint64) {
			if err := c.ReadMem(a, buf); err != nil && !errors.Is(err, unwind.ErrUnavailable) {
				t.Fatalf("ReadMem(%#x): %v", a, err)
			}
			c.IsCode(a)
		}
		for _, s := range c.Segments {
			probe(s.Vaddr)
			probe(s.Vaddr + s.Filesz)
			probe(s.Vaddr + s.Memsz - 1)
		}
		for _, m := range c.Mappings {
			probe(m.Start)
			probe(m.End - 8)
		}
		for _, e := range c.Auxv {
			probe(e.Val)
		}
		if c.Signal != nil {
			_ = c.Signal.String()
		}
	})
}

// linkMapMemory lays out an r_debug and a link map of three entries (the
// executable, a library, the loader) in a memory image at base, in the
// given byte order and word size; the last l_next is next.
func linkMapMemory(order binary.ByteOrder, w int, base, next uint64) (mem []byte, rdebug uint64) {
	mem = make([]byte, 0x400)
	putWord := func(off int, v uint64) {
		if w == 8 {
			order.PutUint64(mem[off:], v)
		} else {
			order.PutUint32(mem[off:], uint32(v))
		}
	}
	names := []string{"", "/lib/libm.so.6", "/lib/ld.so.1"}
	putWord(rDebugMapWord*w, base+0x100) // r_debug at 0: r_map
	for i, name := range names {
		at := 0x100 + i*linkMapWords*w
		copy(mem[0x300+i*0x40:], name)
		putWord(at, uint64(i)<<20)                      // l_addr
		putWord(at+w, base+0x300+uint64(i)*0x40)        // l_name
		putWord(at+2*w, uint64(i)<<20+0x2000)           // l_ld
		putWord(at+3*w, base+uint64(at+linkMapWords*w)) // l_next
		putWord(at+4*w, base+uint64(at-linkMapWords*w)) // l_prev
		if i == 0 {
			putWord(at+4*w, 0)
		}
		if i == len(names)-1 {
			putWord(at+3*w, next)
		}
	}
	return mem, base
}

// FuzzLinkMap walks a link map in hostile memory: the walk must end
// (bounded, cycles cut) without a panic, whatever the pointers say.
func FuzzLinkMap(f *testing.F) {
	for _, big := range []bool{false, true} {
		for _, w := range []int{4, 8} {
			var order binary.ByteOrder = binary.LittleEndian
			if big {
				order = binary.BigEndian
			}
			mem, rdebug := linkMapMemory(order, w, 0x10000, 0)
			f.Add(mem, rdebug, w == 8, big)
			mem, rdebug = linkMapMemory(order, w, 0x10000, 0x10100) // a cycle
			f.Add(mem, rdebug, w == 8, big)
		}
	}
	f.Fuzz(func(t *testing.T, mem []byte, rdebug uint64, is64, big bool) {
		c := &Core{order: binary.LittleEndian, ptrSize: 4, data: mem, fileStatus: map[string]string{}}
		if big {
			c.order = binary.BigEndian
		}
		if is64 {
			c.ptrSize = 8
		}
		n := uint64(len(mem))
		c.ranges = []memRange{{start: 0x10000, end: 0x10000 + n, avail: n, filesz: n, flags: elf.PF_R | elf.PF_W}}
		head, err := c.readWord(rdebug + rDebugMapWord*uint64(c.ptrSize))
		if err != nil {
			return
		}
		entries, _ := c.walkLinkMap(head)
		if len(entries) > maxLinkMapEntries {
			t.Fatalf("%d entries", len(entries))
		}
		for _, e := range c.libraryEntries(entries) {
			if e.path == "" || len(e.path) > maxPathLen {
				t.Fatalf("library entry %+v", e)
			}
		}
	})
}

// TestLinkMapWalkSeeds checks the fuzz seeds decode as laid out, in both
// byte orders and word sizes, that the cycle is cut, and that a pointer
// to memory the core lacks ends the walk with a problem saying where.
func TestLinkMapWalkSeeds(t *testing.T) {
	for _, big := range []bool{false, true} {
		for _, w := range []int{4, 8} {
			var order binary.ByteOrder = binary.LittleEndian
			if big {
				order = binary.BigEndian
			}
			for _, next := range []uint64{0, 0x10100, 0xdead0000} {
				mem, rdebug := linkMapMemory(order, w, 0x10000, next)
				n := uint64(len(mem))
				c := &Core{order: order, ptrSize: w, data: mem, ranges: []memRange{{start: 0x10000, end: 0x10000 + n, avail: n, filesz: n}}}
				head, err := c.readWord(rdebug + uint64(w))
				if err != nil {
					t.Fatal(err)
				}
				entries, problems := c.walkLinkMap(head)
				libs := c.libraryEntries(entries)
				if len(entries) != 3 || len(libs) != 2 || libs[0].path != "/lib/libm.so.6" || libs[0].addr != 1<<20 || libs[1].path != "/lib/ld.so.1" {
					t.Errorf("big %v word %d: entries %+v", big, w, entries)
				}
				want := map[uint64]string{0x10100: "comes round again (a cycle)", 0xdead0000: "entry at 0xdead0000: 0xdead0000: memory unavailable"}[next]
				if (want == "") != (len(problems) == 0) || (want != "" && (len(problems) != 1 || !strings.Contains(problems[0].Error(), want))) {
					t.Errorf("big %v word %d next %#x: problems %v, want one saying %q", big, w, next, problems, want)
				}
			}
		}
	}
}

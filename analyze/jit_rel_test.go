package analyze

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// regionMem is target memory made of byte regions, for tests of the JIT
// object reader without a core.
type regionMem map[uint64][]byte

func (m regionMem) ReadMem(addr uint64, p []byte) error {
	for start, b := range m {
		if addr >= start && addr-start <= uint64(len(b)) && uint64(len(p)) <= uint64(len(b))-(addr-start) {
			copy(p, b[addr-start:])
			return nil
		}
	}
	return fmt.Errorf("%d bytes at %#x not mapped", len(p), addr)
}

// Where relocatableJIT places things in memory.
const (
	relImageAddr = 0x10000   // the registered object
	relLoadAddr  = 0x4000000 // its sections as the JIT loaded them
	relEHOffset  = 0x1000    // .eh_frame's place in the loaded memory
)

// relocatableJIT is a relocatable object as a JIT registers it: gcc's
// object file whose .text and .eh_frame section headers carry the
// addresses they were loaded at, and the loaded memory. (A real JIT's
// loaded copies are relocated; this one's are not, which matters only to
// what the code and unwind info say, not to their reading.)
type relocatableJIT struct {
	img    []byte // the registered object
	loaded []byte // memory at relLoadAddr: .text, then .eh_frame at relEHOffset
	ef     *elf.File
	shoff  uint64
}

const relocatableJITSource = `
__attribute__((noinline)) int rel_leaf(volatile int *p, int x) { *p = x; return x + 1; }
int rel_entry(volatile int *p, int x) { return rel_leaf(p, x * 3) * 2 + 1; }
`

// buildRelocatableJIT compiles relocatableJITSource with gcc flags and
// places its sections; it returns nil when gcc cannot.
func buildRelocatableJIT(tb testing.TB, dir string, flags ...string) *relocatableJIT {
	src := filepath.Join(dir, "rel.c")
	obj := filepath.Join(dir, "rel.o")
	if err := os.WriteFile(src, []byte(relocatableJITSource), 0o644); err != nil {
		tb.Fatal(err)
	}
	args := append(append([]string{"-c", "-o", obj}, flags...), src)
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		tb.Logf("gcc %s: %v\n%s", strings.Join(args, " "), err, out)
		return nil
	}
	img, err := os.ReadFile(obj)
	if err != nil {
		tb.Fatal(err)
	}
	r := &relocatableJIT{img: img, shoff: binary.LittleEndian.Uint64(img[0x28:])}
	if r.ef, err = elf.NewFile(bytes.NewReader(img)); err != nil || r.ef.Type != elf.ET_REL || r.ef.Class != elf.ELFCLASS64 {
		tb.Fatalf("gcc -c made no 64-bit relocatable object: %v", err)
	}
	text := r.section(tb, ".text")
	r.loaded = make([]byte, relEHOffset)
	copy(r.loaded, img[text.Offset:text.Offset+text.Size])
	r.setSection(tb, ".text", shdrAddr, relLoadAddr)
	if eh := r.ef.Section(".eh_frame"); eh != nil {
		r.loaded = append(r.loaded, img[eh.Offset:eh.Offset+eh.Size]...)
		r.setSection(tb, ".eh_frame", shdrAddr, relLoadAddr+relEHOffset)
	}
	return r
}

// Offsets of Elf64_Shdr fields.
const (
	shdrAddr   = 16
	shdrOffset = 24
	shdrSize   = 32
)

func (r *relocatableJIT) section(tb testing.TB, name string) *elf.Section {
	s := r.ef.Section(name)
	if s == nil {
		tb.Fatalf("gcc's object has no %s", name)
	}
	return s
}

// setSection overwrites one 8-byte field of a section header.
func (r *relocatableJIT) setSection(tb testing.TB, name string, field int, v uint64) {
	for i, s := range r.ef.Sections {
		if s.Name == name {
			binary.LittleEndian.PutUint64(r.img[r.shoff+uint64(i)*64+uint64(field):], v)
			return
		}
	}
	tb.Fatalf("no section %s", name)
}

// setSymbolSection overwrites the section index of the named symbol.
func (r *relocatableJIT) setSymbolSection(tb testing.TB, name string, shndx uint16) {
	syms, err := r.ef.Symbols()
	if err != nil {
		tb.Fatal(err)
	}
	tab := r.section(tb, ".symtab")
	for i, s := range syms {
		if s.Name == name {
			binary.LittleEndian.PutUint16(r.img[tab.Offset+uint64(i+1)*24+6:], shndx) // entry 0 is not in syms
			return
		}
	}
	tb.Fatalf("no symbol %s", name)
}

func (r *relocatableJIT) mem() regionMem {
	return regionMem{relImageAddr: r.img, relLoadAddr: r.loaded}
}

// TestRelocatableJITObject: a well-formed relocatable object gets its
// symbols at their section's load address, with the source lines its
// DWARF relocations give; hostile ones give warnings or an error, never
// a module that claims code it does not describe.
func TestRelocatableJITObject(t *testing.T) {
	testenv.NeedTool(t, "gcc")
	for _, tc := range []struct {
		name   string
		damage func(*relocatableJIT)
		warn   string   // in a warning ("" for none)
		err    string   // in the error ("" for a module)
		placed []string // the functions named at their load address
	}{
		{name: "well-formed", placed: []string{"rel_leaf", "rel_entry"}},
		{name: "bad symbol section", warn: "invalid section index", placed: []string{"rel_entry"},
			damage: func(r *relocatableJIT) { r.setSymbolSection(t, "rel_leaf", 0x7000) }},
		{name: "address wraps", warn: "invalid section index or address", err: "no code section",
			damage: func(r *relocatableJIT) { r.setSection(t, ".text", shdrAddr, ^uint64(0)-2) }},
		{name: "huge code section", warn: "out of bounds", err: "no code section",
			damage: func(r *relocatableJIT) { r.setSection(t, ".text", shdrSize, 1<<62) }},
		{name: "eh_frame not loaded", warn: "is unreadable", placed: []string{"rel_leaf", "rel_entry"},
			damage: func(r *relocatableJIT) { r.loaded = r.loaded[:relEHOffset] }},
		{name: "symbol table past the end", warn: "runs past the image",
			damage: func(r *relocatableJIT) { r.setSection(t, ".symtab", shdrOffset, uint64(len(r.img))-8) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := buildRelocatableJIT(t, t.TempDir(), "-O1", "-g", "-fasynchronous-unwind-tables")
			if r == nil {
				t.Fatal("gcc failed")
			}
			if tc.damage != nil {
				tc.damage(r)
			}
			m, ws, err := jitObjectModule(r.mem(), relImageAddr, uint64(len(r.img)))
			for _, w := range ws {
				t.Logf("warning: %s", w)
			}
			if got := strings.Join(ws, "\n"); tc.warn == "" && got != "" || !strings.Contains(got, tc.warn) {
				t.Errorf("warnings %q, want one with %q", ws, tc.warn)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer m.obj().Close()
			text := r.section(t, ".text")
			if m.start != relLoadAddr || m.end != relLoadAddr+text.Size {
				t.Errorf("module [%#x,%#x), want [%#x,%#x)", m.start, m.end, relLoadAddr, relLoadAddr+text.Size)
			}
			syms, _ := r.ef.Symbols()
			for _, s := range syms {
				if elf.ST_TYPE(s.Info) != elf.STT_FUNC {
					continue
				}
				got, ok := m.obj().Symbol(relLoadAddr + s.Value + 1)
				if !slices.Contains(tc.placed, s.Name) {
					if ok && got.Name == s.Name {
						t.Errorf("%s was placed at %#x", s.Name, got.Addr)
					}
					continue
				}
				if !ok || got.Name != s.Name || got.Addr != relLoadAddr+s.Value {
					t.Errorf("symbol at %#x: %+v, want %s at %#x", relLoadAddr+s.Value+1, got, s.Name, relLoadAddr+s.Value)
				}
				if tc.name != "well-formed" {
					continue
				}
				// gcc's object: the function's first line is its
				// definition's line in relocatableJITSource.
				want := 2
				if s.Name == "rel_entry" {
					want = 3
				}
				sf, err := m.obj().SourceFrames(relLoadAddr + s.Value)
				if err != nil || len(sf) == 0 || filepath.Base(sf[len(sf)-1].File) != "rel.c" || sf[len(sf)-1].Line != want {
					t.Errorf("%s: source %+v (%v), want rel.c:%d", s.Name, sf, err, want)
				}
			}
		})
	}
}

// TestJITObjectsOverlap: two registered objects that claim the same code
// (the second a copy of the first, moved into its middle) leave the first
// as the one module there, with a warning.
func TestJITObjectsOverlap(t *testing.T) {
	testenv.NeedTool(t, "gcc")
	dir := t.TempDir()
	var mods []*module
	for _, shift := range []uint64{4, 0} {
		r := buildRelocatableJIT(t, dir, "-O1", "-g")
		if r == nil {
			t.Fatal("gcc failed")
		}
		r.setSection(t, ".text", shdrAddr, relLoadAddr+shift)
		m, _, err := jitObjectModule(r.mem(), relImageAddr, uint64(len(r.img)))
		if err != nil {
			t.Fatal(err)
		}
		m.core.Path = fmt.Sprintf("[jit +%d]", shift)
		mods = append(mods, m)
	}
	kept, ws := dropOverlaps(mods)
	t.Logf("warnings: %q", ws)
	if len(kept) != 1 || kept[0].start != relLoadAddr || len(ws) != 1 || !strings.Contains(ws[0], "[jit +4]: code") {
		t.Errorf("kept %d modules, warnings %q; want the one at %#x and a warning about the other", len(kept), ws, relLoadAddr)
	}
	for _, m := range kept {
		m.obj().Close()
	}
}

// FuzzJITObject reads an arbitrary image registered with the GDB JIT
// interface, with arbitrary bytes loaded at an arbitrary address (where
// a relocatable object's sections claim to be), and exercises the module
// it gives. Nothing may panic, hang or allocate beyond the input. Seeds
// are relocatable objects as a JIT registers them, well-formed and
// damaged, and an absolute one.
func FuzzJITObject(f *testing.F) {
	f.Add([]byte("\x7fELF\x02\x01\x01\x00"), []byte{}, uint64(0))
	if _, err := exec.LookPath("gcc"); err == nil {
		dir := f.TempDir()
		for _, flags := range [][]string{
			{"-O1", "-g", "-gdwarf-4", "-fasynchronous-unwind-tables"},
			{"-O2", "-g", "-gdwarf-5", "-fasynchronous-unwind-tables"},
			{"-O0", "-fno-asynchronous-unwind-tables", "-g"},
		} {
			r := buildRelocatableJIT(f, dir, flags...)
			if r == nil {
				continue
			}
			f.Add(r.img, r.loaded, uint64(relLoadAddr))
			f.Add(r.img, r.loaded, uint64(relLoadAddr+relEHOffset)) // sections loaded elsewhere
			f.Add(r.img[:len(r.img)*2/3], r.loaded, uint64(relLoadAddr))
		}
		r := buildRelocatableJIT(f, dir, "-O1", "-g")
		if r != nil {
			r.setSymbolSection(f, "rel_leaf", 0x7000)
			r.setSection(f, ".eh_frame", shdrAddr, relLoadAddr) // over .text
			r.setSection(f, ".eh_frame", shdrSize, 1<<40)
			f.Add(r.img, r.loaded, uint64(relLoadAddr))
		}
		// An absolute object: what TestGDBJITInterface registers.
		src, exe := filepath.Join(dir, "abs.c"), filepath.Join(dir, "abs")
		os.WriteFile(src, []byte(gdbJITObject), 0o644)
		if exec.Command("gcc", "-O2", "-g", "-nostdlib", "-static", "-no-pie", "-Wl,-e,jit_entry",
			"-Wl,-Ttext-segment=0x60000000", "-o", exe, src).Run() == nil {
			if b, err := os.ReadFile(exe); err == nil {
				f.Add(b, []byte{}, uint64(0))
			}
		}
	}
	f.Fuzz(func(t *testing.T, img, loaded []byte, loadAddr uint64) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			exerciseJITObject(img, loaded, loadAddr)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			buf := make([]byte, 1<<20)
			t.Fatalf("hang:\n%s", buf[:runtime.Stack(buf, true)])
		}
	})
}

func exerciseJITObject(img, loaded []byte, loadAddr uint64) {
	mem := regionMem{relImageAddr: img}
	if loadAddr > relImageAddr+uint64(len(img)) {
		mem[loadAddr] = loaded
	}
	m, _, err := jitObjectModule(mem, relImageAddr, uint64(len(img)))
	if err != nil {
		return
	}
	defer m.obj().Close()
	addrs := []uint64{m.start, m.end - 1, m.start + (m.end-m.start)/2}
	for _, s := range m.obj().ELF().Sections {
		addrs = append(addrs, s.Addr, s.Addr+s.Size/2)
	}
	for _, a := range addrs {
		m.obj().Symbol(a)
		m.obj().SourceFrames(a)
		m.obj().FindFDE(a)
	}
}

package pa64

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// libunwind's _U_dyn_info_list_addr as its source has it: the list is
// hidden, the function exported.
const dynListLib = `typedef struct { unsigned v, g; void *first; } unw_dyn_info_list_t;
__attribute__((visibility("hidden"))) unw_dyn_info_list_t _U_dyn_info_list;
unsigned long _U_dyn_info_list_addr(void) { return (unsigned long) &_U_dyn_info_list; }
int use(void) { return _U_dyn_info_list.v; }
`

// loadedImage reads a shared object's memory as the loader leaves it at
// bias 0: segment contents, with R_PARISC_DIR32/DIR64 slots relocated.
func loadedImage(t *testing.T, f *elf.File) func(addr uint64, p []byte) error {
	t.Helper()
	mem := map[uint64]byte{}
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		b := make([]byte, p.Filesz)
		if _, err := p.ReadAt(b, 0); err != nil {
			t.Fatal(err)
		}
		for i, c := range b {
			mem[p.Vaddr+uint64(i)] = c
		}
	}
	dsyms, _ := f.DynamicSymbols()
	wide := f.Class == elf.ELFCLASS64
	for _, s := range f.Sections {
		if s.Type != elf.SHT_RELA {
			continue
		}
		data, err := s.Data()
		if err != nil {
			t.Fatal(err)
		}
		size := 12
		if wide {
			size = 24
		}
		for off := 0; off+size <= len(data); off += size {
			var at, typ, sym, add uint64
			if wide {
				at, typ, sym, add = f.ByteOrder.Uint64(data[off:]), f.ByteOrder.Uint64(data[off+8:])&0xffffffff, f.ByteOrder.Uint64(data[off+8:])>>32, f.ByteOrder.Uint64(data[off+16:])
			} else {
				info := f.ByteOrder.Uint32(data[off+4:])
				at, typ, sym, add = uint64(f.ByteOrder.Uint32(data[off:])), uint64(info&0xff), uint64(info>>8), uint64(f.ByteOrder.Uint32(data[off+8:]))
			}
			v := add
			if sym > 0 && int(sym) <= len(dsyms) {
				v += dsyms[sym-1].Value
			}
			switch typ {
			case 1: // R_PARISC_DIR32
				for i := 0; i < 4; i++ {
					mem[at+uint64(i)] = byte(v >> (24 - 8*i))
				}
			case 80: // R_PARISC_DIR64
				for i := 0; i < 8; i++ {
					mem[at+uint64(i)] = byte(v >> (56 - 8*i))
				}
			}
		}
	}
	return func(addr uint64, p []byte) error {
		for i := range p {
			c, ok := mem[addr+uint64(i)]
			if !ok {
				return fmt.Errorf("%#x not mapped", addr+uint64(i))
			}
			p[i] = c
		}
		return nil
	}
}

// The list's address decoded from gcc's code for _U_dyn_info_list_addr
// (PA 1.1 PIC through r19's linkage table; PA 2.0W through dp, the
// function descriptor in .opd giving code and gp) matches the hidden
// variable's value in the unstripped symbol table.
func TestListAddrFromCode(t *testing.T) {
	for _, tc := range []struct{ gcc, name string }{
		{"hppa-linux-gnu-gcc-12", "hppa"},
		{"hppa64-linux-gnu-gcc-12", "hppa64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gcc := testenv.NeedTool(t, tc.gcc)
			dir := t.TempDir()
			src := filepath.Join(dir, "lib.c")
			if err := os.WriteFile(src, []byte(dynListLib), 0o644); err != nil {
				t.Fatal(err)
			}
			lib := filepath.Join(dir, "lib.so")
			testenv.Build(t, gcc, "-O2", "-fPIC", "-shared", "-nostdlib", "-o", lib, src)
			f, err := elf.Open(lib)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			syms, err := f.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			var list, fn uint64
			for _, s := range syms {
				if s.Name == "_U_dyn_info_list" {
					list = s.Value
				}
			}
			// The function as a stripped library exports it (in PA 2.0W,
			// its descriptor).
			dsyms, _ := f.DynamicSymbols()
			for _, s := range dsyms {
				switch {
				case s.Name == "_U_dyn_info_list_addr":
					fn = s.Value
				case s.Name == "_U_dyn_info_list" && elf.ST_BIND(s.Info) != elf.STB_LOCAL:
					t.Fatal("the list is exported; libunwind hides it")
				}
			}
			if list == 0 || fn == 0 {
				t.Fatalf("symbols: list %#x, exported function %#x", list, fn)
			}
			got, err := ListAddrIn(f, 0, loadedImage(t, f), f.ByteOrder, fn)
			if err != nil {
				t.Fatal(err)
			}
			if got != list {
				t.Errorf("decoded %#x, symbol table %#x", got, list)
			}
			// Code that is not the function's is refused, not guessed.
			if _, err := ListAddrIn(f, 0, loadedImage(t, f), f.ByteOrder, list); err == nil {
				t.Error("data decoded as the function")
			}
		})
	}
}

// FuzzListAddr evaluates arbitrary code: an error or an address,
// never a panic or a loop.
func FuzzListAddr(f *testing.F) {
	f.Add([]byte{0x2a, 0x60, 0, 0, 0xe8, 0x40, 0xc0, 0, 0x48, 0x3c, 0, 0x60}, false)
	f.Add([]byte{0x2b, 0x60, 0, 0, 0xe8, 0x40, 0xd0, 0, 0x50, 0x3c, 0, 0}, true)
	f.Fuzz(func(t *testing.T, code []byte, wide bool) {
		read := func(addr uint64, p []byte) error {
			for i := range p {
				a := addr + uint64(i)
				if a < 0x1000 || a-0x1000 >= uint64(len(code)) {
					p[i] = byte(a)
					continue
				}
				p[i] = code[a-0x1000]
			}
			return nil
		}
		listAddr(read, binary.BigEndian, wide, 0x1000, 0x2000)
	})
}

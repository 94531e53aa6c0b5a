package ia64

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	crossia64 "github.com/coreunwind/coreunwind/internal/crossarch/ia64"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// listAddrBodies are the ways "return &_U_dyn_info_list" is written in
// IA-64 position-independent code: gp-relative (the variable hidden, as
// in libunwind), through the linkage table, with a long immediate, and
// with a copy to r8; gas chooses the bundles.
var listAddrBodies = map[string]string{
	"gprel": `
	addl r8 = @gprel(_U_dyn_info_list#), gp
	br.ret.sptk.many b0`,
	"ltoff": `
	addl r14 = @ltoff(_U_dyn_info_list#), gp
	;;
	ld8 r8 = [r14]
	br.ret.sptk.many b0`,
	"ltoff-acq": `
	addl r14 = @ltoff(_U_dyn_info_list#), gp
	;;
	ld8.acq r8 = [r14]
	br.ret.sptk.many b0`,
	"movl": `
	movl r14 = @gprel(_U_dyn_info_list#)
	;;
	add r8 = r14, gp
	br.ret.sptk.many b0`,
	"mov": `
	addl r15 = @gprel(_U_dyn_info_list#), r1
	;;
	mov r8 = r15
	nop.i 0
	;;
	br.ret.sptk.many b0`,
}

// listAddrSource is a shared object's source: a hidden list variable
// (behind other data, so its offset from gp is not trivial) and the
// exported function returning its address.
func listAddrSource(body string) string {
	return `
	.section .sdata
	.align 8
other:	data8 1, 2, 3
	.section .bss
	.align 16
	.skip 4096
	.hidden _U_dyn_info_list
	.globl _U_dyn_info_list
	.type _U_dyn_info_list,@object
	.size _U_dyn_info_list,24
_U_dyn_info_list:
	.skip 24
	.text
	.align 16
	.global _U_dyn_info_list_addr#
	.type _U_dyn_info_list_addr#,@function
	.proc _U_dyn_info_list_addr#
_U_dyn_info_list_addr:
	.prologue
	.body` + body + `
	.endp _U_dyn_info_list_addr#
`
}

// buildListAddrSO assembles and links src into a shared object.
func buildListAddrSO(t *testing.T, dir, name, src string, be bool) string {
	t.Helper()
	obj := crossia64.Build(t, dir, name, src, be, false, "")
	ld := testenv.NeedTool(t, "ia64-linux-gnu-ld")
	so := filepath.Join(dir, name+".so")
	args := []string{"-shared", "-o", so, obj}
	if be {
		args = append([]string{"-EB"}, args...)
	}
	if out, err := exec.Command(ld, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", ld, strings.Join(args, " "), err, out)
	}
	return so
}

// readelfSymbol is a symbol's value as readelf -s prints it.
func readelfSymbol(t *testing.T, path, name string) uint64 {
	t.Helper()
	readelf := testenv.NeedTool(t, "ia64-linux-gnu-readelf")
	out, err := exec.Command(readelf, "-sW", path).Output()
	if err != nil {
		t.Fatalf("readelf -s %s: %v", path, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 8 && f[7] == name {
			v, err := strconv.ParseUint(f[1], 16, 64)
			if err != nil {
				t.Fatalf("readelf value %q: %v", f[1], err)
			}
			return v
		}
	}
	t.Fatalf("readelf: no symbol %s in %s", name, path)
	return 0
}

// IA-64 relocation types (psABI; debug/elf does not name them).
const (
	rIA64DIR64MSB = 0x26
	rIA64DIR64LSB = 0x27
	rIA64REL64MSB = 0x6e
	rIA64REL64LSB = 0x6f
)

// loadedImage is the object's memory as the loader leaves it at bias:
// its PT_LOAD segments, with the relative and 64-bit direct relocations
// of its .rela.dyn applied (the linkage table slots an ld8 reads).
func loadedImage(t *testing.T, f *elf.File, bias uint64) func(addr uint64, p []byte) error {
	t.Helper()
	mem := map[uint64][]byte{}
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		b := make([]byte, p.Memsz)
		if _, err := p.ReadAt(b[:p.Filesz], 0); err != nil {
			t.Fatal(err)
		}
		mem[p.Vaddr+bias] = b
	}
	find := func(addr uint64, n int) []byte {
		for base, b := range mem {
			if addr >= base && addr-base+uint64(n) <= uint64(len(b)) {
				return b[addr-base : addr-base+uint64(n)]
			}
		}
		return nil
	}
	dynsyms, _ := f.DynamicSymbols()
	if sec := f.Section(".rela.dyn"); sec != nil {
		data, err := sec.Data()
		if err != nil {
			t.Fatal(err)
		}
		o := f.ByteOrder
		for off := 0; off+24 <= len(data); off += 24 {
			at, info, addend := o.Uint64(data[off:]), o.Uint64(data[off+8:]), o.Uint64(data[off+16:])
			typ, sym := info&0xffffffff, int(info>>32)
			var v uint64
			switch typ {
			case rIA64REL64MSB, rIA64REL64LSB:
				v = bias + addend
			case rIA64DIR64MSB, rIA64DIR64LSB:
				if sym < 1 || sym > len(dynsyms) {
					t.Fatalf("relocation %#x against symbol %d", typ, sym)
				}
				v = dynsyms[sym-1].Value + bias + addend
			default:
				continue
			}
			slot := find(at+bias, 8)
			if slot == nil {
				t.Fatalf("relocation at %#x outside the image", at)
			}
			o.PutUint64(slot, v)
		}
	}
	return func(addr uint64, p []byte) error {
		b := find(addr, len(p))
		if b == nil {
			return fmt.Errorf("%#x: not mapped", addr)
		}
		copy(p, b)
		return nil
	}
}

// readBundles reads up to eight bundles at addr, as many as are mapped.
func readBundles(t *testing.T, read func(addr uint64, p []byte) error, addr uint64) []byte {
	t.Helper()
	var code []byte
	b := make([]byte, 16)
	for len(code) < 8*16 && read(addr+uint64(len(code)), b) == nil {
		code = append(code, b...)
	}
	if len(code) == 0 {
		t.Fatalf("no code at %#x", addr)
	}
	return code
}

// TestListAddrFromCode: for each way of writing the function, in both
// byte orders and at two load addresses, the evaluated address is the
// hidden variable's readelf value plus the load bias.
func TestListAddrFromCode(t *testing.T) {
	for name, body := range listAddrBodies {
		for _, be := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/be=%v", name, be), func(t *testing.T) {
				so := buildListAddrSO(t, t.TempDir(), name, listAddrSource(body), be)
				f, err := elf.Open(so)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				list := readelfSymbol(t, so, "_U_dyn_info_list")
				fn := readelfSymbol(t, so, "_U_dyn_info_list_addr")
				pltgot, err := f.DynValue(elf.DT_PLTGOT)
				if err != nil || len(pltgot) != 1 {
					t.Fatalf("DT_PLTGOT: %v %v", pltgot, err)
				}
				for _, bias := range []uint64{0, 0x2000000000040000} {
					read := loadedImage(t, f, bias)
					code := readBundles(t, read, fn+bias)
					got, err := ListAddrFromCode(code, fn+bias, pltgot[0]+bias, read, f.ByteOrder)
					if err != nil {
						t.Fatalf("bias %#x: %v", bias, err)
					}
					if want := list + bias; got != want {
						t.Errorf("bias %#x: %#x, readelf says the list is at %#x", bias, got, want)
					}
				}
			})
		}
	}
}

// TestListAddrRefused: code that is not a known form of the function
// gives ErrNotListAddrCode, not an address: other functions' bundles,
// a predicated or unknown-register computation, a call, no return, a
// reserved template, a misaligned start.
func TestListAddrRefused(t *testing.T) {
	bodies := map[string]string{
		"predicated": `
	(p6) addl r8 = @gprel(_U_dyn_info_list#), gp
	br.ret.sptk.many b0`,
		"unknown base": `
	adds r8 = 16, r32
	br.ret.sptk.many b0`,
		"no r8": `
	addl r9 = @gprel(_U_dyn_info_list#), gp
	br.ret.sptk.many b0`,
		"call": `
	addl r8 = @gprel(_U_dyn_info_list#), gp
	br.call.sptk.many b0 = b6
	br.ret.sptk.many b0`,
		"store": `
	addl r8 = @gprel(_U_dyn_info_list#), gp
	;;
	st8 [r8] = r0
	br.ret.sptk.many b0`,
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			so := buildListAddrSO(t, t.TempDir(), "refused", listAddrSource(body), false)
			f, err := elf.Open(so)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			fn := readelfSymbol(t, so, "_U_dyn_info_list_addr")
			read := loadedImage(t, f, 0)
			code := readBundles(t, read, fn)
			got, err := ListAddrFromCode(code, fn, 0x10000, read, f.ByteOrder)
			if !errors.Is(err, ErrNotListAddrCode) {
				t.Fatalf("got %#x, %v; want ErrNotListAddrCode", got, err)
			}
			t.Log(err)
		})
	}

	nopBundle := []byte{0x01, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 4, 0} // [MII] nop.m; nop.i; nop.i;;
	for name, c := range map[string]struct {
		code []byte
		pc   uint64
	}{
		"no return":         {append(append([]byte{}, nopBundle...), nopBundle...), 0x1000},
		"garbage":           {[]byte("\xde\xad\xbe\xef\xde\xad\xbe\xef\xde\xad\xbe\xef\xde\xad\xbe\xef"), 0x1000},
		"reserved template": {append([]byte{0x07}, nopBundle[1:]...), 0x1000},
		"misaligned":        {nopBundle, 0x1004},
		"short":             {nopBundle[:10], 0x1000},
		"empty":             {nil, 0x1000},
	} {
		t.Run(name, func(t *testing.T) {
			never := func(addr uint64, p []byte) error { t.Fatalf("read at %#x", addr); return nil }
			got, err := ListAddrFromCode(c.code, c.pc, 0x10000, never, binary.LittleEndian)
			if !errors.Is(err, ErrNotListAddrCode) {
				t.Fatalf("got %#x, %v; want ErrNotListAddrCode", got, err)
			}
			t.Log(err)
		})
	}
}

// FuzzListAddrFromCode evaluates arbitrary bundles: an error or an
// address, never a panic, and no read outside what ld8 asks for.
func FuzzListAddrFromCode(f *testing.F) {
	f.Add([]byte{0x11, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0x80, 0x08, 0, 0x84, 0}, uint64(0x10000), false)
	f.Add([]byte{0x0a, 0x70, 0x60, 0x02, 0x00, 0x24, 0x80, 0x00, 0x38, 0x30, 0x20, 0x00, 0x00, 0x00, 0x04, 0x00,
		0x11, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x80, 0x08, 0x00, 0x84, 0x00}, uint64(0x102e0), true)
	f.Add([]byte{0x08, 0x40, 0x30, 0x02, 0x00, 0x24, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
		0x11, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x80, 0x08, 0x00, 0x84, 0x00}, uint64(0x10000), false)
	f.Fuzz(func(t *testing.T, code []byte, gp uint64, be bool) {
		var order binary.ByteOrder = binary.LittleEndian
		if be {
			order = binary.BigEndian
		}
		read := func(addr uint64, p []byte) error {
			if len(p) != 8 {
				t.Fatalf("read of %d bytes", len(p))
			}
			if addr&7 != 0 {
				return errors.New("misaligned")
			}
			order.PutUint64(p, addr^0x5555)
			return nil
		}
		ListAddrFromCode(code, 0x4000, gp, read, order)
	})
}

package ia64

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// Finding libunwind's _U_dyn_info_list from code. In a stripped
// libunwind the list variable is hidden, but the exported function
// _U_dyn_info_list_addr returns its address. In IA-64 position-independent
// code compilers and gas write that as
//
//	addl r8 = @gprel(_U_dyn_info_list), gp      // hidden: gp-relative
//	br.ret.sptk.many b0
//
// or, through the linkage table,
//
//	addl r14 = @ltoff(_U_dyn_info_list), gp ;;
//	ld8 r8 = [r14]
//	br.ret.sptk.many b0
//
// (a large offset: movl r14 = @gprel(...) ;; add r8 = r14, gp), with nops
// filling the bundles. ListAddrFromCode evaluates those few instructions
// with gp (r1) known and returns r8 at the return; any other instruction
// is refused rather than guessed at.

// ErrNotListAddrCode says the code is not a form of _U_dyn_info_list_addr
// the evaluator knows.
var ErrNotListAddrCode = errors.New("not the code of _U_dyn_info_list_addr")

// maxListAddrBundles bounds the evaluation: the function is a few bundles.
const maxListAddrBundles = 8

// ListAddrFromCode evaluates code, the first bytes of
// _U_dyn_info_list_addr at address pc (bundle-aligned), with r1 = gp and
// returns what the function returns in r8. read reads target memory (the
// linkage table slot an ld8 loads); order is the target's data byte order
// (bundles themselves are always stored little-endian, whatever the data
// byte order: gas -mbe writes the same bundle bytes).
func ListAddrFromCode(code []byte, pc, gp uint64, read func(addr uint64, p []byte) error, order binary.ByteOrder) (uint64, error) {
	if pc&15 != 0 {
		return 0, fmt.Errorf("function address %#x is not bundle-aligned: %w", pc, ErrNotListAddrCode)
	}
	var e listAddrEval
	e.set(1, gp)
	e.read, e.order = read, order
	for i := 0; i < maxListAddrBundles && 16*(i+1) <= len(code); i++ {
		b := splitBundle(code[16*i : 16*i+16])
		at := pc + 16*uint64(i)
		units, ok := bundleUnits(b.template)
		if !ok {
			return 0, fmt.Errorf("bundle at %#x: reserved template %#x: %w", at, b.template, ErrNotListAddrCode)
		}
		for s := 0; s < 3; s++ {
			u := units[s]
			if u == unitL { // the MLX bundle's long immediate, used by slot 2
				continue
			}
			done, err := e.step(u, b.slot[s], b.slot[1])
			if err != nil {
				return 0, fmt.Errorf("slot %#x: %w", at+uint64(s), err)
			}
			if done {
				if !e.known[8] {
					return 0, fmt.Errorf("slot %#x: return without r8 computed: %w", at+uint64(s), ErrNotListAddrCode)
				}
				return e.gr[8], nil
			}
		}
	}
	return 0, fmt.Errorf("no return within %d bytes at %#x: %w", min(len(code), 16*maxListAddrBundles), pc, ErrNotListAddrCode)
}

// listAddrEval is the general registers the evaluated code has set.
type listAddrEval struct {
	gr    [128]uint64
	known [128]bool
	read  func(addr uint64, p []byte) error
	order binary.ByteOrder
}

func (e *listAddrEval) set(r int, v uint64) {
	if r != 0 { // r0 reads as zero whatever is written
		e.gr[r], e.known[r] = v, true
	}
}

func (e *listAddrEval) get(r int) (uint64, error) {
	if r == 0 {
		return 0, nil
	}
	if !e.known[r] {
		return 0, fmt.Errorf("r%d is not known: %w", r, ErrNotListAddrCode)
	}
	return e.gr[r], nil
}

// step evaluates one instruction of unit u; long is the MLX bundle's
// slot 1 (the movl immediate's upper bits). It reports the return.
func (e *listAddrEval) step(u unit, in, long uint64) (bool, error) {
	op := in >> 37 & 0xf
	qp := in & 0x3f
	if isNop(u, in) {
		return false, nil
	}
	if qp != 0 {
		// A predicated instruction's effect depends on predicates this
		// evaluation does not know.
		return false, fmt.Errorf("instruction %#011x predicated on p%d: %w", in, qp, ErrNotListAddrCode)
	}
	r1 := int(in >> 6 & 0x7f)
	switch {
	case (u == unitM || u == unitI) && op == 9: // A5: addl r1 = imm22, r3 (r3 in r0..r3)
		r3 := int(in >> 20 & 3)
		imm := in>>13&0x7f | (in>>27&0x1ff)<<7 | (in>>22&0x1f)<<16 | (in>>36&1)<<21
		base, err := e.get(r3)
		if err != nil {
			return false, err
		}
		e.set(r1, base+signExtend(imm, 22))
	case (u == unitM || u == unitI) && op == 8 && in>>33&1 == 0 && in>>34&3 == 2: // A4: adds r1 = imm14, r3 (mov is adds 0)
		r3 := int(in >> 20 & 0x7f)
		imm := in>>13&0x7f | (in>>27&0x3f)<<7 | (in>>36&1)<<13
		base, err := e.get(r3)
		if err != nil {
			return false, err
		}
		e.set(r1, base+signExtend(imm, 14))
	case (u == unitM || u == unitI) && op == 8 && in>>33&7 == 0 && in>>29&0xf == 0 && in>>27&3 == 0: // A1: add r1 = r2, r3
		a, err := e.get(int(in >> 13 & 0x7f))
		if err != nil {
			return false, err
		}
		b, err := e.get(int(in >> 20 & 0x7f))
		if err != nil {
			return false, err
		}
		e.set(r1, a+b)
	case u == unitM && op == 4 && in>>36&1 == 0 && in>>27&1 == 0 && (in>>30&0x3f == 0x03 || in>>30&0x3f == 0x17): // M1: ld8 / ld8.acq r1 = [r3]
		addr, err := e.get(int(in >> 20 & 0x7f))
		if err != nil {
			return false, err
		}
		var w [8]byte
		if err := e.read(addr, w[:]); err != nil {
			return false, fmt.Errorf("linkage table slot %#x: %w", addr, err)
		}
		e.set(r1, e.order.Uint64(w[:]))
	case u == unitX && op == 6 && in>>20&1 == 0: // X2: movl r1 = imm64
		imm := in>>13&0x7f | (in>>27&0x1ff)<<7 | (in>>22&0x1f)<<16 | (in>>21&1)<<21 | (long&0x1ffffffffff)<<22 | (in>>36&1)<<63
		e.set(r1, imm)
	case u == unitB && op == 0 && in>>27&0x3f == 0x21 && in>>6&7 == 4: // B4: br.ret
		return true, nil
	default:
		return false, fmt.Errorf("instruction %#011x (%v unit, opcode %d): %w", in, u, op, ErrNotListAddrCode)
	}
	return false, nil
}

// isNop reports nop.m/i/f/x (opcode 0, x3 0, x6 1; hint shares the
// encoding with y set and is as harmless) and nop.b/hint.b (opcode 2,
// x6 0 or 1).
func isNop(u unit, in uint64) bool {
	op, x6 := in>>37&0xf, in>>27&0x3f
	switch u {
	case unitM, unitI, unitF, unitX:
		return op == 0 && in>>33&7 == 0 && x6 == 1
	case unitB:
		return op == 2 && (x6 == 0 || x6 == 1)
	}
	return false
}

func signExtend(v uint64, bits uint) uint64 {
	return uint64(int64(v<<(64-bits)) >> (64 - bits))
}

// bundle is one 16-byte instruction bundle: a 5-bit template and three
// 41-bit slots, stored as a little-endian 128-bit number.
type bundle struct {
	template uint8
	slot     [3]uint64
}

func splitBundle(b []byte) bundle {
	lo, hi := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	const m41 = 1<<41 - 1
	return bundle{
		template: uint8(lo & 0x1f),
		slot:     [3]uint64{lo >> 5 & m41, (lo>>46 | hi<<18) & m41, hi >> 23 & m41},
	}
}

// unit is the execution unit a slot's instruction is for.
type unit uint8

const (
	unitM unit = iota + 1
	unitI
	unitF
	unitB
	unitL // MLX slot 1: the long immediate
	unitX // MLX slot 2
)

func (u unit) String() string {
	if int(u) < len(unitNames) {
		return unitNames[u]
	}
	return fmt.Sprintf("unit(%d)", uint8(u))
}

var unitNames = [...]string{"?", "M", "I", "F", "B", "L", "X"}

// templateUnits maps a bundle template to its slots' units (the stop
// bits, the template's low bit and M;;MI's inner stop, do not change
// what sequential evaluation of legal code computes). Templates 0x06,
// 0x07, 0x14, 0x15, 0x1a, 0x1b, 0x1e and 0x1f are reserved: their entry
// is zero (see bundleUnits). An array, as a map literal is built at every
// run's start.
var templateUnits = [32][3]unit{
	0x00: {unitM, unitI, unitI}, 0x01: {unitM, unitI, unitI},
	0x02: {unitM, unitI, unitI}, 0x03: {unitM, unitI, unitI},
	0x04: {unitM, unitL, unitX}, 0x05: {unitM, unitL, unitX},
	0x08: {unitM, unitM, unitI}, 0x09: {unitM, unitM, unitI},
	0x0a: {unitM, unitM, unitI}, 0x0b: {unitM, unitM, unitI},
	0x0c: {unitM, unitF, unitI}, 0x0d: {unitM, unitF, unitI},
	0x0e: {unitM, unitM, unitF}, 0x0f: {unitM, unitM, unitF},
	0x10: {unitM, unitI, unitB}, 0x11: {unitM, unitI, unitB},
	0x12: {unitM, unitB, unitB}, 0x13: {unitM, unitB, unitB},
	0x16: {unitB, unitB, unitB}, 0x17: {unitB, unitB, unitB},
	0x18: {unitM, unitM, unitB}, 0x19: {unitM, unitM, unitB},
	0x1c: {unitM, unitF, unitB}, 0x1d: {unitM, unitF, unitB},
}

// bundleUnits returns the units of a bundle template's slots; ok is false
// for a reserved template.
func bundleUnits(template uint8) (units [3]unit, ok bool) {
	units = templateUnits[template&0x1f]
	return units, units[0] != 0
}

// listAddrBytes is how much of the function is read: the decoder looks
// at no more than eight bundles.
const listAddrBytes = 8 * 16

// DynListAddr is unwind.Arch's. It reads _U_dyn_info_list_addr's
// bundles from the target and evaluates them with gp the module's global
// pointer: its DT_PLTGOT (what libunwind and the loader use as gp), or
// the __gp symbol in an object without a dynamic section (a static
// executable). On IA-64 a function symbol is its code address, not a
// descriptor.
func (a Arch) DynListAddr(as unwind.AddrSpace, f *elf.File, bias, fn uint64) (uint64, error) {
	gp, err := globalPointer(f)
	if err != nil {
		return 0, err
	}
	gp += bias
	// Bundle by bundle: the function may end its mapping.
	code := make([]byte, 0, listAddrBytes)
	var b [16]byte
	for len(code) < listAddrBytes {
		if err := as.ReadMem(fn+uint64(len(code)), b[:]); err != nil {
			if len(code) == 0 {
				return 0, fmt.Errorf("code at %#x: %w", fn, err)
			}
			break
		}
		code = append(code, b[:]...)
	}
	return ListAddrFromCode(code, fn, gp, as.ReadMem, as.ByteOrder())
}

// globalPointer is an object's link-time gp.
func globalPointer(f *elf.File) (uint64, error) {
	if v, err := f.DynValue(elf.DT_PLTGOT); err == nil && len(v) > 0 {
		return v[0], nil
	}
	syms, _ := f.Symbols()
	for _, s := range syms {
		if s.Name == "__gp" && s.Section != elf.SHN_UNDEF {
			return s.Value, nil
		}
	}
	return 0, errors.New("no global pointer (neither DT_PLTGOT nor __gp)")
}

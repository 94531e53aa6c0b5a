package unwtab

import (
	"fmt"
	"strings"
)

// String formats r exactly as binutils' readelf -u prints a descriptor
// ("P7:mem_stack_f(t=1,size=32)"), except where readelf is wrong: it
// prints the target register of X2/X4 records with only 5 of its 7 bits
// (r40 comes out as r8); this prints the register the bytes name.
func (r Record) String() string {
	f := r.Format.String()
	switch r.Op {
	case OpPrologue, OpBody:
		return fmt.Sprintf("%s:%s(rlen=%d)", f, map[bool]string{false: "prologue", true: "body"}[r.Op == OpBody], r.Rlen)
	case OpPrologueGR:
		return fmt.Sprintf("%s:prologue_gr(mask=[%s],grsave=r%d,rlen=%d)", f, r2MaskString(r.Mask), r.GR, r.Rlen)
	case OpBrMem:
		return fmt.Sprintf("%s:br_mem(brmask=[%s])", f, brMaskString(r.Mask))
	case OpBrGR:
		return fmt.Sprintf("%s:br_gr(brmask=[%s],gr=r%d)", f, brMaskString(r.Mask), r.GR)
	case OpRegGR:
		return fmt.Sprintf("%s:%s_gr(reg=r%d)", f, r.Reg, r.GR)
	case OpRpBR:
		return fmt.Sprintf("%s:rp_br(reg=b%d)", f, r.GR)
	case OpSpillMask:
		return fmt.Sprintf("%s:spill_mask(imask=[%s])", f, imaskString(r.IMask, r.RegionRlen))
	case OpFrGrMem:
		return fmt.Sprintf("%s:frgr_mem(grmask=[%s],frmask=[%s])", f, grMaskString(r.Mask), frMaskString(r.FRMask))
	case OpFrMem:
		return fmt.Sprintf("%s:fr_mem(frmask=[%s])", f, frMaskString(r.FRMask))
	case OpGrMem:
		return fmt.Sprintf("%s:gr_mem(grmask=[%s])", f, grMaskString(r.Mask))
	case OpMemStackF:
		return fmt.Sprintf("%s:mem_stack_f(t=%d,size=%d)", f, r.T, 16*r.Size)
	case OpMemStackV:
		return fmt.Sprintf("%s:mem_stack_v(t=%d)", f, r.T)
	case OpSpillBase:
		return fmt.Sprintf("%s:spill_base(pspoff=0x10-%#x)", f, 4*r.Off)
	case OpRegWhen:
		return fmt.Sprintf("%s:%s_when(t=%d)", f, r.Reg, r.T)
	case OpRegSprel:
		return fmt.Sprintf("%s:%s_sprel(spoff=%#x)", f, r.Reg, 4*r.Off)
	case OpRegPsprel:
		return fmt.Sprintf("%s:%s_psprel(pspoff=0x10-%#x)", f, r.Reg, 4*r.Off)
	case OpPriunatWhenGR:
		return fmt.Sprintf("%s:priunat_when_gr(t=%d)", f, r.T)
	case OpPriunatWhenMem:
		return fmt.Sprintf("%s:priunat_when_mem(t=%d)", f, r.T)
	case OpGrGR:
		return fmt.Sprintf("%s:gr_gr(grmask=[%s],r%d)", f, grMaskString(r.Mask), r.GR)
	case OpUnwabi:
		abi := fmt.Sprintf("%#x", r.ABI)
		if r.ABI < 3 {
			abi = [...]string{"@svr4", "@hpux", "@nt"}[r.ABI]
		}
		return fmt.Sprintf("%s:unwabi(abi=%s,context=0x%02x)", f, abi, r.Ctx)
	case OpLabelState:
		return fmt.Sprintf("%s:label_state(label=%d)", f, r.Label)
	case OpCopyState:
		return fmt.Sprintf("%s:copy_state(label=%d)", f, r.Label)
	case OpEpilogue:
		return fmt.Sprintf("%s:epilogue(t=%d,ecount=%d)", f, r.T, r.ECount)
	case OpSpillSprel, OpSpillPsprel:
		name, off := "spill_sprel", fmt.Sprintf("spoff=%#x", 4*r.Off)
		if r.Op == OpSpillPsprel {
			name, off = "spill_psprel", fmt.Sprintf("pspoff=0x10-%#x", 4*r.Off)
		}
		if r.Format == X3 {
			return fmt.Sprintf("%s:%s_p(qp=p%d,t=%d,reg=%s,%s)", f, name, r.QP, r.T, ABRegName(r.ABReg), off)
		}
		return fmt.Sprintf("%s:%s(reg=%s,t=%d,%s)", f, name, ABRegName(r.ABReg), r.T, off)
	case OpSpillReg:
		if r.Format == X4 {
			return fmt.Sprintf("%s:spill_reg_p(qp=p%d,t=%d,reg=%s,treg=%s)", f, r.QP, r.T, ABRegName(r.ABReg), tregName(r.X, r.YTReg))
		}
		return fmt.Sprintf("%s:spill_reg(t=%d,reg=%s,treg=%s)", f, r.T, ABRegName(r.ABReg), tregName(r.X, r.YTReg))
	case OpRestore:
		if r.Format == X4 {
			return fmt.Sprintf("%s:restore_p(qp=p%d,t=%d,reg=%s)", f, r.QP, r.T, ABRegName(r.ABReg))
		}
		return fmt.Sprintf("%s:restore(t=%d,reg=%s)", f, r.T, ABRegName(r.ABReg))
	}
	return fmt.Sprintf("%s:?", f)
}

func r2MaskString(m uint8) string {
	var s []string
	for i, n := range [...]string{"rp", "ar.pfs", "psp", "pr"} {
		if m&(8>>i) != 0 {
			s = append(s, n)
		}
	}
	return strings.Join(s, ",")
}

func brMaskString(m uint8) string {
	var s []string
	for i := 0; i < 5; i++ {
		if m&(1<<i) != 0 {
			s = append(s, fmt.Sprintf("b%d", i+1))
		}
	}
	return strings.Join(s, ",")
}

func grMaskString(m uint8) string {
	var s []string
	for i := 0; i < 4; i++ {
		if m&(1<<i) != 0 {
			s = append(s, fmt.Sprintf("r%d", i+4))
		}
	}
	return strings.Join(s, ",")
}

// frMaskString lists frmask bits 0..3 as f2..f5 and 4..19 as f16..f31.
func frMaskString(m uint32) string {
	var s []string
	for i := 0; i < 20; i++ {
		if m&(1<<i) != 0 {
			n := i + 2
			if i >= 4 {
				n = i + 12
			}
			s = append(s, fmt.Sprintf("f%d", n))
		}
	}
	return strings.Join(s, ",")
}

// imaskString prints 2 bits per slot ('-' none, 'f', 'r', 'b'), a comma
// after every bundle (3 slots), as readelf does.
func imaskString(m []byte, rlen uint64) string {
	var sb strings.Builder
	for i := uint64(0); i < rlen && i/4 < uint64(len(m)); i++ {
		if i > 0 && i%3 == 0 {
			sb.WriteByte(',')
		}
		sb.WriteByte("-frb"[ImaskSlot(m, i)])
	}
	return sb.String()
}

// ImaskSlot returns the 2-bit spill type of slot i (first slot in the top
// bits of the first byte).
func ImaskSlot(m []byte, i uint64) byte {
	return m[i/4] >> (2 * (3 - i%4)) & 3
}

// ABRegName names an X-record abreg as readelf does (r4, f16, b1, pr,
// psp, @priunat, rp, ar.bsp, ...).
func ABRegName(ab uint8) string {
	switch ab >> 5 & 3 {
	case 0:
		return fmt.Sprintf("r%d", ab&0x1f)
	case 1:
		return fmt.Sprintf("f%d", ab&0x1f)
	case 2:
		return fmt.Sprintf("b%d", ab&0x1f)
	}
	special := [16]string{"pr", "psp", "@priunat", "rp", "ar.bsp", "ar.bspstore", "ar.rnat",
		"ar.unat", "ar.fpsr", "ar.pfs", "ar.lc", "Unknown11", "Unknown12", "Unknown13", "Unknown14", "Unknown15"}
	return special[ab&0xf]
}

// tregName names the X2/X4 target register from the x bit and the y/treg
// byte, with all 7 register bits.
func tregName(x, ytreg uint8) string {
	switch {
	case x == 1:
		return fmt.Sprintf("b%d", ytreg&0x7f)
	case ytreg&0x80 != 0:
		return fmt.Sprintf("f%d", ytreg&0x7f)
	}
	return fmt.Sprintf("r%d", ytreg&0x7f)
}

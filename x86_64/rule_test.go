package x86_64

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/elfx/cfi"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
)

// patternSpace is memory whose every word is a function of its address;
// with holes, one word in five is unavailable, so that block reads of
// save slots fail and single slots are lost.
type patternSpace struct{ holes bool }

func (patternSpace) ByteOrder() binary.ByteOrder { return binary.LittleEndian }
func (patternSpace) PtrSize() int                { return 8 }
func (s patternSpace) ReadMem(addr uint64, p []byte) error {
	for i := range p {
		a := addr + uint64(i)
		if s.holes && (a>>3)%5 == 2 {
			return fmt.Errorf("%#x: %w", a, unwind.ErrUnavailable)
		}
		w := (a>>3)*0x9e3779b97f4a7c15 ^ 0x5555
		p[i] = byte(w >> (8 * (a & 7)))
	}
	return nil
}
func (patternSpace) FindProcInfo(uint64) (*unwind.ProcInfo, error) { return nil, unwind.ErrNoInfo }
func (patternSpace) ProcName(uint64) (string, uint64, error)       { return "", 0, unwind.ErrNoInfo }
func (patternSpace) DynInfoListAddr() (uint64, error)              { return 0, unwind.ErrNoInfo }

// libcRows returns every row of every FDE of the system libc's
// .eh_frame, with the FDE's CIE.
func libcRows(t *testing.T) (rows []cfi.Row, cies []*cfi.CIE) {
	paths, _ := filepath.Glob("/lib/x86_64-linux-gnu/libc.so.6")
	if len(paths) == 0 {
		testenv.Unavailable(t, "no /lib/x86_64-linux-gnu/libc.so.6")
	}
	f, err := elf.Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sec := f.Section(".eh_frame")
	if sec == nil {
		t.Fatalf("%s has no .eh_frame", paths[0])
	}
	data, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	tab, err := cfi.NewEHFrame(data, sec.Addr, nil, 0, binary.LittleEndian, 8)
	if err != nil {
		t.Fatal(err)
	}
	fdes, err := tab.FDEs()
	if err != nil {
		t.Fatal(err)
	}
	for _, fde := range fdes {
		rs, err := fde.Rows()
		if err != nil {
			t.Fatalf("FDE at %#x: %v", fde.Begin, err)
		}
		for _, r := range rs {
			rows = append(rows, r)
			cies = append(cies, fde.CIE)
		}
	}
	return rows, cies
}

// calleeFrame is a frame with every register known (distinct values,
// each saved somewhere distinct) except those in unknown.
func calleeFrame(unknown ...int) *unwind.Frame {
	f := unwind.NewFrame(NumRegs)
	for r := 0; r < NumRegs; r++ {
		f.Set(r, 0x1000+uint64(r)*0x111111, unwind.SaveLoc{Kind: unwind.LocMem, Addr: 0x9000 + uint64(r)*8})
	}
	f.Set(RSP, 0x7ffd00001000, unwind.SaveLoc{Kind: unwind.LocValue})
	f.Set(RBP, 0x7ffd00001080, unwind.SaveLoc{Kind: unwind.LocSame})
	for _, r := range unknown {
		f.Valid[r], f.Regs[r], f.Locs[r] = false, 0, unwind.SaveLoc{}
	}
	return f
}

// Every row of libc's CFI steps to the same caller through its rule
// (compact, or full with an expression context only where the row has
// expressions) as through the full row with a context always built (the
// reference: the rules applied one by one as DWARF states them, as the
// unwinder did before compact rules): same registers, save locations,
// CFA, trust, result and error, with all of memory readable, with holes
// in it, and with callee registers unknown.
func TestCompactRuleMatchesFullRow(t *testing.T) {
	rows, cies := libcRows(t)
	callees := []*unwind.Frame{
		calleeFrame(),
		calleeFrame(RBX, R13, R15),
		calleeFrame(RBP),
		calleeFrame(RSP),
	}
	compact := 0
	for i, row := range rows {
		cie := cies[i]
		cr := cfiRule(row, cie.Signal, cie.RAColumn, unwind.TrustNone)
		if cr.full == nil {
			compact++
		}
		fr := rule{kind: ruleCFI, signal: cie.Signal, full: &fullRule{row: row, raCol: cie.RAColumn}}
		for _, holes := range []bool{false, true} {
			as := patternSpace{holes}
			for j, callee := range callees {
				got, want := unwind.NewFrame(NumRegs), unwind.NewFrame(NumRegs)
				gres, gerr := stepCFI(as, &cr, callee, got)
				wres, werr := stepCFI(as, &fr, callee, want)
				if d := frameDiff(gres, gerr, got, wres, werr, want); d != "" {
					t.Fatalf("row at %#x (CFA %+v, rules %+v), holes %v, callee %d: rule and full row differ: %s", row.Loc, row.CFA, row.Regs, holes, j, d)
				}
			}
		}
	}
	// glibc's rows are overwhelmingly plain prologues: the compact form
	// must hold nearly all of them, or the fast path is not the path.
	if compact < len(rows)*9/10 {
		t.Errorf("%d of %d rows compact, want at least 90%%", compact, len(rows))
	}
	t.Logf("%d of %d libc rows compact", compact, len(rows))
}

func frameDiff(gres unwind.StepResult, gerr error, got *unwind.Frame, wres unwind.StepResult, werr error, want *unwind.Frame) string {
	if fmt.Sprint(gerr) != fmt.Sprint(werr) || gres != wres {
		return fmt.Sprintf("result %v, %v; want %v, %v", gres, gerr, wres, werr)
	}
	if gerr != nil {
		return "" // Step discards the caller of a failed step
	}
	for r := 0; r < NumRegs; r++ {
		if got.Valid[r] != want.Valid[r] || got.Regs[r] != want.Regs[r] || got.Locs[r] != want.Locs[r] {
			return fmt.Sprintf("%s: %v %#x %+v; want %v %#x %+v", RegName(uint64(r)), got.Valid[r], got.Regs[r], got.Locs[r], want.Valid[r], want.Regs[r], want.Locs[r])
		}
	}
	if got.CFA != want.CFA || got.HasCFA != want.HasCFA || got.Trust != want.Trust || got.ExactPC != want.ExactPC || got.Signal != want.Signal {
		return fmt.Sprintf("frame facts %#x %v %v %v %v; want %#x %v %v %v %v", got.CFA, got.HasCFA, got.Trust, got.ExactPC, got.Signal, want.CFA, want.HasCFA, want.Trust, want.ExactPC, want.Signal)
	}
	return ""
}

// Rows glibc lacks: which go compact, and each steps as the full row
// with an expression context always built (the old path) does.
func TestCompactRuleHandmade(t *testing.T) {
	off := func(o int64) cfi.Rule { return cfi.Rule{Kind: cfi.Offset, Offset: o} }
	regs := func(set map[int]cfi.Rule) []cfi.Rule {
		rs := make([]cfi.Rule, NumRegs)
		rs[RIP] = off(-8)
		for r, rl := range set {
			rs[r] = rl
		}
		return rs
	}
	rsp8 := cfi.CFARule{Reg: RSP, Offset: 8}
	for _, c := range []struct {
		name    string
		row     cfi.Row
		raCol   uint64
		compact bool
	}{
		{"entry", cfi.Row{CFA: rsp8, Regs: regs(nil)}, RIP, true},
		{"rbp frame, all saved", cfi.Row{CFA: cfi.CFARule{Reg: RBP, Offset: 16}, Regs: regs(map[int]cfi.Rule{RBP: off(-16), RBX: off(-24), R12: off(-32), R13: off(-40), R14: off(-48), R15: off(-56)})}, RIP, true},
		{"slots beyond the scratch block", cfi.Row{CFA: rsp8, Regs: regs(map[int]cfi.Rule{RBX: off(-4096), R12: off(-16)})}, RIP, true},
		{"rsp undefined", cfi.Row{CFA: rsp8, Regs: regs(map[int]cfi.Rule{RSP: {Kind: cfi.Undefined}})}, RIP, true},
		{"same value rbx", cfi.Row{CFA: rsp8, Regs: regs(map[int]cfi.Rule{RBX: {Kind: cfi.SameValue}})}, RIP, true},
		{"short Regs", cfi.Row{CFA: rsp8, Regs: regs(nil)[:RIP+1]}, RIP, true},
		{"undefined rbx", cfi.Row{CFA: rsp8, Regs: regs(map[int]cfi.Rule{RBX: {Kind: cfi.Undefined}})}, RIP, false},
		{"rax saved", cfi.Row{CFA: rsp8, Regs: regs(map[int]cfi.Rule{RAX: off(-16)})}, RIP, false},
		{"same value rax", cfi.Row{CFA: rsp8, Regs: regs(map[int]cfi.Rule{RAX: {Kind: cfi.SameValue}})}, RIP, false},
		{"rbx in a register", cfi.Row{CFA: rsp8, Regs: regs(map[int]cfi.Rule{RBX: {Kind: cfi.Register, Reg: RAX}})}, RIP, false},
		{"rbp val_offset", cfi.Row{CFA: rsp8, Regs: regs(map[int]cfi.Rule{RBP: {Kind: cfi.ValOffset, Offset: -16}})}, RIP, false},
		{"huge CFA offset", cfi.Row{CFA: cfi.CFARule{Reg: RSP, Offset: 1 << 40}, Regs: regs(nil)}, RIP, false},
		{"huge slot offset", cfi.Row{CFA: rsp8, Regs: regs(map[int]cfi.Rule{RBX: off(-1 << 40)})}, RIP, false},
		{"CFA expression", cfi.Row{CFA: cfi.CFARule{Expr: []byte{0x77, 8}}, Regs: regs(nil)}, RIP, false},
		{"return address undefined", cfi.Row{CFA: rsp8, Regs: regs(map[int]cfi.Rule{RIP: {Kind: cfi.Undefined}})}, RIP, false},
		{"other return column", cfi.Row{CFA: rsp8, Regs: regs(nil)}, RAX, false},
		{"CFA on rip", cfi.Row{CFA: cfi.CFARule{Reg: RIP}, Regs: regs(nil)}, RIP, false},
	} {
		cr := cfiRule(c.row, false, c.raCol, unwind.TrustNone)
		if (cr.full == nil) != c.compact {
			t.Errorf("%s: compact %v, want %v", c.name, cr.full == nil, c.compact)
			continue
		}
		fr := rule{kind: ruleCFI, full: &fullRule{row: c.row, raCol: c.raCol}}
		for _, holes := range []bool{false, true} {
			got, want := unwind.NewFrame(NumRegs), unwind.NewFrame(NumRegs)
			gres, gerr := stepCFI(patternSpace{holes}, &cr, calleeFrame(R14), got)
			wres, werr := stepCFI(patternSpace{holes}, &fr, calleeFrame(R14), want)
			if d := frameDiff(gres, gerr, got, wres, werr, want); d != "" {
				t.Errorf("%s, holes %v: %s", c.name, holes, d)
			}
		}
	}
}

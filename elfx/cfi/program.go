package cfi

import (
	"fmt"
	"slices"
	"sync"
)

// DW_CFA_* opcodes. The first three carry their operand in the low 6 bits.
const (
	cfaAdvanceLoc = 0x40
	cfaOffset     = 0x80
	cfaRestore    = 0xc0

	cfaNop                       = 0x00
	cfaSetLoc                    = 0x01
	cfaAdvanceLoc1               = 0x02
	cfaAdvanceLoc2               = 0x03
	cfaAdvanceLoc4               = 0x04
	cfaOffsetExtended            = 0x05
	cfaRestoreExtended           = 0x06
	cfaUndefined                 = 0x07
	cfaSameValue                 = 0x08
	cfaRegister                  = 0x09
	cfaRememberState             = 0x0a
	cfaRestoreState              = 0x0b
	cfaDefCFA                    = 0x0c
	cfaDefCFARegister            = 0x0d
	cfaDefCFAOffset              = 0x0e
	cfaDefCFAExpression          = 0x0f
	cfaExpression                = 0x10
	cfaOffsetExtendedSF          = 0x11
	cfaDefCFASF                  = 0x12
	cfaDefCFAOffsetSF            = 0x13
	cfaValOffset                 = 0x14
	cfaValOffsetSF               = 0x15
	cfaValExpression             = 0x16
	cfaMIPSAdvanceLoc8           = 0x1d
	cfaGNUWindowSave             = 0x2d
	cfaGNUArgsSize               = 0x2e
	cfaGNUNegativeOffsetExtended = 0x2f
)

// Limits that keep hostile input from driving allocations: no real
// architecture numbers its DWARF registers beyond a few hundred (IA-64 is
// the largest at ~ 3000 with all application registers), and compilers
// nest remember_state a handful of levels at most.
const (
	maxRegister   = 4095
	maxStateDepth = 128
	// maxCopiedRules caps the rules one run copies in total (remembered
	// states and the rows Rows returns, each registers long): real FDEs
	// stay far below it, while a crafted one could otherwise ask for
	// gigabytes (one high register, then thousands of one-byte
	// remember_state or advance instructions).
	maxCopiedRules = 1 << 18
)

// state is the rule set being built by the interpreter.
type state struct {
	cfa        CFARule
	regs       []Rule
	windowSave bool
}

func (s *state) clone() state {
	c := *s
	if s.regs != nil {
		c.regs = append([]Rule(nil), s.regs...)
	}
	return c
}

func (s *state) row(loc uint64) Row {
	c := s.clone()
	return Row{Loc: loc, CFA: c.cfa, Regs: c.regs, WindowSave: c.windowSave}
}

func (s *state) set(reg uint64, r Rule) error {
	if reg > maxRegister {
		return fmt.Errorf("register number %d too large", reg)
	}
	if reg >= uint64(len(s.regs)) {
		n := make([]Rule, reg+1)
		copy(n, s.regs)
		s.regs = n
	}
	s.regs[reg] = r
	return nil
}

// interp runs CFA instructions for one CIE.
type interp struct {
	cie     *CIE
	st      state
	initial *state // the CIE's state, nil while running the CIE itself
	stack   []state
	loc     uint64
	copied  int // rules copied so far, against maxCopiedRules
}

// charge accounts for copying n rules; false means over budget.
func (in *interp) charge(n int) bool {
	in.copied += n + 1
	return in.copied <= maxCopiedRules
}

// runMode: with stop set, run stops before a row that starts past pc;
// with emit set, it hands every finished row to emit.
type runMode struct {
	stop bool
	pc   uint64
	emit func(loc uint64, st *state) bool // false stops the run
}

// runInitial executes a CIE's initial instructions and returns the state
// they establish.
func runInitial(c *CIE) (state, error) {
	in := interp{cie: c}
	_, err := in.run(c.Initial, c.initAddr, runMode{})
	return in.st, err
}

// run executes instr (located at link-time address addr). It returns true
// when it stopped because the next row starts past m.pc.
func (in *interp) run(instr []byte, addr uint64, m runMode) (bool, error) {
	c := in.cie
	r := reader{b: instr, order: c.order}
	for r.remaining() > 0 {
		opPos := r.pos
		op, _ := r.u8()
		fail := func(what string, err error) error {
			return fmt.Errorf("cfi: instruction %#02x at %#x: %s: %w", op, addr+uint64(opPos), what, err)
		}
		var operand uint64
		if op&0xc0 != 0 {
			operand = uint64(op & 0x3f)
			op &= 0xc0
		}
		var err error
		var reg, reg2 uint64
		var expr []byte
		switch op {
		case cfaAdvanceLoc, cfaAdvanceLoc1, cfaAdvanceLoc2, cfaAdvanceLoc4, cfaMIPSAdvanceLoc8:
			delta := operand
			switch op {
			case cfaAdvanceLoc1:
				delta, err = r.uint(1)
			case cfaAdvanceLoc2:
				delta, err = r.uint(2)
			case cfaAdvanceLoc4:
				delta, err = r.uint(4)
			case cfaMIPSAdvanceLoc8:
				delta, err = r.uint(8)
			}
			if err != nil {
				return false, fail("advance_loc", err)
			}
			if in.newLoc(in.loc+delta*c.CodeAlign, m) {
				return true, nil
			}
		case cfaSetLoc:
			var loc uint64
			if c.section == sectionEH {
				loc, err = readEncoded(&r, c.FDEEncoding, c.ptrSize, ptrBases{pc: addr})
			} else {
				loc, err = r.uint(int(c.AddrSize))
			}
			if err != nil {
				return false, fail("set_loc", err)
			}
			if in.newLoc(loc, m) {
				return true, nil
			}
		case cfaOffset, cfaOffsetExtended, cfaOffsetExtendedSF, cfaValOffset, cfaValOffsetSF, cfaGNUNegativeOffsetExtended:
			reg = operand
			if op != cfaOffset {
				if reg, err = r.uleb(); err != nil {
					return false, fail("register", err)
				}
			}
			var off int64
			switch op {
			case cfaOffsetExtendedSF, cfaValOffsetSF:
				off, err = r.sleb()
			default:
				var u uint64
				u, err = r.uleb()
				off = int64(u)
				if op == cfaGNUNegativeOffsetExtended {
					off = -off
				}
			}
			if err != nil {
				return false, fail("offset", err)
			}
			kind := Offset
			if op == cfaValOffset || op == cfaValOffsetSF {
				kind = ValOffset
			}
			err = in.st.set(reg, Rule{Kind: kind, Offset: off * c.DataAlign})
		case cfaRestore, cfaRestoreExtended:
			reg = operand
			if op == cfaRestoreExtended {
				if reg, err = r.uleb(); err != nil {
					return false, fail("register", err)
				}
			}
			var rule Rule
			if in.initial != nil && reg < uint64(len(in.initial.regs)) {
				rule = in.initial.regs[reg]
			}
			err = in.st.set(reg, rule)
		case cfaUndefined, cfaSameValue:
			reg, err = r.uleb()
			if err != nil {
				return false, fail("register", err)
			}
			kind := Undefined
			if op == cfaSameValue {
				kind = SameValue
			}
			err = in.st.set(reg, Rule{Kind: kind})
		case cfaRegister:
			reg, err = r.uleb()
			if err != nil {
				return false, fail("register", err)
			}
			reg2, err = r.uleb()
			if err != nil {
				return false, fail("register", err)
			}
			err = in.st.set(reg, Rule{Kind: Register, Reg: reg2})
		case cfaRememberState:
			if len(in.stack) >= maxStateDepth {
				return false, fail("remember_state", fmt.Errorf("state stack deeper than %d", maxStateDepth))
			}
			if !in.charge(len(in.st.regs)) {
				return false, fail("remember_state", fmt.Errorf("more than %d rules copied", maxCopiedRules))
			}
			in.stack = append(in.stack, in.st.clone())
		case cfaRestoreState:
			if len(in.stack) == 0 {
				return false, fail("restore_state", fmt.Errorf("state stack is empty"))
			}
			in.st = in.stack[len(in.stack)-1]
			in.stack = in.stack[:len(in.stack)-1]
		case cfaDefCFA, cfaDefCFASF:
			reg, err = r.uleb()
			if err != nil {
				return false, fail("register", err)
			}
			var off int64
			if op == cfaDefCFASF {
				off, err = r.sleb()
				off *= c.DataAlign
			} else {
				var u uint64
				u, err = r.uleb()
				off = int64(u)
			}
			if err != nil {
				return false, fail("offset", err)
			}
			in.st.cfa = CFARule{Reg: reg, Offset: off}
		case cfaDefCFARegister:
			reg, err = r.uleb()
			if err != nil {
				return false, fail("register", err)
			}
			in.st.cfa.Reg = reg
			in.st.cfa.Expr = nil
		case cfaDefCFAOffset, cfaDefCFAOffsetSF:
			var off int64
			if op == cfaDefCFAOffsetSF {
				off, err = r.sleb()
				off *= c.DataAlign
			} else {
				var u uint64
				u, err = r.uleb()
				off = int64(u)
			}
			if err != nil {
				return false, fail("offset", err)
			}
			// Only meaningful for a register+offset CFA; like readelf,
			// an expression CFA stays an expression.
			in.st.cfa.Offset = off
		case cfaDefCFAExpression:
			expr, err = readBlock(&r)
			if err != nil {
				return false, fail("expression", err)
			}
			in.st.cfa = CFARule{Expr: expr}
		case cfaExpression, cfaValExpression:
			reg, err = r.uleb()
			if err != nil {
				return false, fail("register", err)
			}
			expr, err = readBlock(&r)
			if err != nil {
				return false, fail("expression", err)
			}
			kind := Expression
			if op == cfaValExpression {
				kind = ValExpression
			}
			err = in.st.set(reg, Rule{Kind: kind, Expr: expr})
			if err != nil {
				return false, fail("expression", err)
			}
		case cfaNop:
		case cfaGNUArgsSize:
			if _, err = r.uleb(); err != nil {
				return false, fail("args_size", err)
			}
		case cfaGNUWindowSave:
			in.st.windowSave = !in.st.windowSave
		default:
			return false, fmt.Errorf("cfi: unknown instruction %#02x at %#x", op, addr+uint64(opPos))
		}
		if err != nil {
			return false, fail("rule", err)
		}
	}
	return false, nil
}

// newLoc moves to a new row starting at loc. It reports whether the
// interpreter should stop (the row being built covers m.pc).
func (in *interp) newLoc(loc uint64, m runMode) bool {
	if in.initial == nil {
		// Advances inside a CIE's initial instructions have no FDE to
		// apply to; they are accepted and ignored.
		return false
	}
	if m.stop && m.pc < loc {
		return true
	}
	if m.emit != nil && !m.emit(in.loc, &in.st) {
		return true
	}
	in.loc = loc
	return false
}

func readBlock(r *reader) ([]byte, error) {
	n, err := r.uleb()
	if err != nil {
		return nil, err
	}
	return r.bytes(n)
}

// RowAt returns the row in effect at pc: the CIE's initial instructions
// and then the FDE's, executed until the next row would start past pc.
func (f *FDE) RowAt(pc uint64) (Row, error) {
	row, err := f.RowAtShared(pc)
	if err == nil {
		row.Regs = slices.Clone(row.Regs)
	}
	return row, err
}

// RowAtShared is RowAt for a caller that only reads the row: its Regs
// may be the FDE's own copy, which every caller asking for the same pc
// shares, and must not be changed. A batch of cores asks an FDE for the
// same rows core after core, and copying each row's register rules was
// a twentieth of a warm triage's CPU.
func (f *FDE) RowAtShared(pc uint64) (Row, error) {
	if pc < f.Begin || pc >= f.End {
		return Row{}, fmt.Errorf("cfi: pc %#x outside FDE [%#x, %#x): %w", pc, f.Begin, f.End, ErrNoFDE)
	}
	if row, ok := f.rows.get(pc); ok {
		return row, nil
	}
	in, err := f.start()
	if err != nil {
		return Row{}, err
	}
	if _, err := in.run(f.Instructions, f.instrAddr, runMode{stop: true, pc: pc}); err != nil {
		return Row{}, fmt.Errorf("FDE at %#x: %w", f.Offset, err)
	}
	// The row's own copy of the rules: the interpreter's state is not
	// the row's, and a row kept is shared (RowAtShared).
	row := Row{Loc: in.loc, CFA: in.st.cfa, Regs: slices.Clone(in.st.regs), WindowSave: in.st.windowSave}
	f.rows.put(pc, row)
	return row, nil
}

// rowMemo keeps an FDE's rows by pc, shared with the callers of
// RowAtShared (RowAt gives each caller a copy of the register rules).
type rowMemo struct {
	mu   sync.Mutex
	rows map[uint64]Row
}

// maxMemoRows bounds the rows kept per FDE (a function is entered at a
// few call sites; a hostile one could be asked at every byte).
const maxMemoRows = 64

func (m *rowMemo) get(pc uint64) (Row, bool) {
	if m == nil {
		return Row{}, false
	}
	m.mu.Lock()
	row, ok := m.rows[pc]
	m.mu.Unlock()
	return row, ok
}

func (m *rowMemo) put(pc uint64, row Row) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rows == nil {
		m.rows = map[uint64]Row{}
	}
	if len(m.rows) < maxMemoRows {
		m.rows[pc] = row
	}
}

// Rows returns every row of the FDE in order. Like readelf, each advance
// (or set_loc) ends a row, so a zero advance yields two rows at the same
// location; the later one is the one in effect.
func (f *FDE) Rows() ([]Row, error) {
	in, err := f.start()
	if err != nil {
		return nil, err
	}
	var rows []Row
	over := false
	emit := func(loc uint64, st *state) bool {
		if !in.charge(len(st.regs)) {
			over = true
			return false
		}
		rows = append(rows, st.row(loc))
		return true
	}
	if _, err := in.run(f.Instructions, f.instrAddr, runMode{emit: emit}); err != nil {
		return rows, fmt.Errorf("FDE at %#x: %w", f.Offset, err)
	}
	if over {
		return rows, fmt.Errorf("cfi: FDE at %#x: more than %d rules copied into its rows", f.Offset, maxCopiedRules)
	}
	rows = append(rows, in.st.row(in.loc))
	return rows, nil
}

func (f *FDE) start() (*interp, error) {
	c := f.CIE
	if c == nil {
		return nil, fmt.Errorf("cfi: FDE at %#x has no CIE", f.Offset)
	}
	if c.initErr != nil {
		return nil, fmt.Errorf("CIE at %#x: %w", c.Offset, c.initErr)
	}
	return &interp{cie: c, st: c.initial.clone(), initial: &c.initial, loc: f.Begin}, nil
}

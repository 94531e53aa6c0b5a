package cfi

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ExprContext is what a DWARF expression may read: the target's memory
// and registers (of the frame being unwound), and the CFA for
// DW_OP_call_frame_cfa.
type ExprContext struct {
	Order   binary.ByteOrder
	PtrSize int
	// ReadMem reads size (1, 2, 4 or 8) bytes at addr, in Order, zero-extended.
	ReadMem func(addr uint64, size int) (uint64, error)
	// Reg returns the value of DWARF register r.
	Reg func(r uint64) (uint64, error)
	// CFA is the canonical frame address for DW_OP_call_frame_cfa; HasCFA
	// says whether it is known (CFA rules themselves cannot use it).
	CFA    uint64
	HasCFA bool
}

// Bounds on evaluation: the expression comes from the file, so loops via
// skip/bra and stack growth are capped.
const (
	maxExprSteps = 10000
	maxExprStack = 1000
)

// ErrExprUnsupported is wrapped by Eval for an operation that is valid
// DWARF but has no meaning in call frame information (or needs context
// this package does not have: TLS, frame base, object address, entry
// values, pieces).
var ErrExprUnsupported = errors.New("unsupported DWARF expression operation")

// DW_OP_* opcodes used in call frame information.
const (
	opAddr       = 0x03
	opDeref      = 0x06
	opConst1u    = 0x08
	opConst1s    = 0x09
	opConst2u    = 0x0a
	opConst2s    = 0x0b
	opConst4u    = 0x0c
	opConst4s    = 0x0d
	opConst8u    = 0x0e
	opConst8s    = 0x0f
	opConstu     = 0x10
	opConsts     = 0x11
	opDup        = 0x12
	opDrop       = 0x13
	opOver       = 0x14
	opPick       = 0x15
	opSwap       = 0x16
	opRot        = 0x17
	opAbs        = 0x19
	opAnd        = 0x1a
	opDiv        = 0x1b
	opMinus      = 0x1c
	opMod        = 0x1d
	opMul        = 0x1e
	opNeg        = 0x1f
	opNot        = 0x20
	opOr         = 0x21
	opPlus       = 0x22
	opPlusUconst = 0x23
	opShl        = 0x24
	opShr        = 0x25
	opShra       = 0x26
	opXor        = 0x27
	opBra        = 0x28
	opEq         = 0x29
	opGe         = 0x2a
	opGt         = 0x2b
	opLe         = 0x2c
	opLt         = 0x2d
	opNe         = 0x2e
	opSkip       = 0x2f
	opLit0       = 0x30
	opLit31      = 0x4f
	opReg0       = 0x50
	opReg31      = 0x6f
	opBreg0      = 0x70
	opBreg31     = 0x8f
	opRegx       = 0x90
	opBregx      = 0x92
	opDerefSize  = 0x94
	opNop        = 0x96
	opCallCFA    = 0x9c
	opStackValue = 0x9f
)

// Eval runs a DWARF expression and returns the value on top of the stack.
// initial values are pushed first, in order (CFI register rules push the
// CFA). DW_OP_regN / DW_OP_regx, which name a register location rather
// than compute a value, push that register's value, as unwinders do.
// Arithmetic is done in the target's address size.
func Eval(expr []byte, ctx *ExprContext, initial ...uint64) (uint64, error) {
	if ctx == nil || ctx.Order == nil || (ctx.PtrSize != 4 && ctx.PtrSize != 8) {
		return 0, errors.New("cfi: Eval needs a byte order and a pointer size of 4 or 8")
	}
	e := evaluator{ctx: ctx, r: reader{b: expr, order: ctx.Order}}
	if ctx.PtrSize == 4 {
		e.mask = 0xffffffff
	} else {
		e.mask = ^uint64(0)
	}
	if len(initial) > maxExprStack {
		return 0, errors.New("cfi: too many initial stack values")
	}
	for _, v := range initial {
		e.stack = append(e.stack, v&e.mask)
	}
	if err := e.run(); err != nil {
		return 0, err
	}
	if len(e.stack) == 0 {
		return 0, errors.New("cfi: expression left an empty stack")
	}
	return e.stack[len(e.stack)-1], nil
}

type evaluator struct {
	ctx   *ExprContext
	r     reader
	stack []uint64
	mask  uint64
}

func (e *evaluator) push(v uint64) error {
	if len(e.stack) >= maxExprStack {
		return errors.New("stack overflow")
	}
	e.stack = append(e.stack, v&e.mask)
	return nil
}

func (e *evaluator) pop() (uint64, error) {
	if len(e.stack) == 0 {
		return 0, errors.New("stack underflow")
	}
	v := e.stack[len(e.stack)-1]
	e.stack = e.stack[:len(e.stack)-1]
	return v, nil
}

// signed interprets v as a signed value of the address size.
func (e *evaluator) signed(v uint64) int64 {
	if e.mask == 0xffffffff {
		return int64(int32(uint32(v)))
	}
	return int64(v)
}

func (e *evaluator) reg(r uint64) (uint64, error) {
	if e.ctx.Reg == nil {
		return 0, errors.New("no register accessor")
	}
	return e.ctx.Reg(r)
}

func (e *evaluator) run() error {
	for steps := 0; e.r.remaining() > 0; steps++ {
		if steps >= maxExprSteps {
			return fmt.Errorf("cfi: expression exceeds %d steps", maxExprSteps)
		}
		pos := e.r.pos
		op, _ := e.r.u8()
		if err := e.step(op); err != nil {
			return fmt.Errorf("cfi: DW_OP %#02x at expression offset %d: %w", op, pos, err)
		}
	}
	return nil
}

func (e *evaluator) step(op uint8) error {
	r := &e.r
	switch {
	case op >= opLit0 && op <= opLit31:
		return e.push(uint64(op - opLit0))
	case op >= opReg0 && op <= opReg31:
		v, err := e.reg(uint64(op - opReg0))
		if err != nil {
			return err
		}
		return e.push(v)
	case op >= opBreg0 && op <= opBreg31:
		off, err := r.sleb()
		if err != nil {
			return err
		}
		v, err := e.reg(uint64(op - opBreg0))
		if err != nil {
			return err
		}
		return e.push(v + uint64(off))
	}
	switch op {
	case opAddr:
		v, err := r.uint(e.ctx.PtrSize)
		if err != nil {
			return err
		}
		return e.push(v)
	case opConst1u, opConst2u, opConst4u, opConst8u:
		size := 1 << ((op - opConst1u) / 2) // 1, 2, 4, 8
		v, err := r.uint(size)
		if err != nil {
			return err
		}
		return e.push(v)
	case opConst1s:
		v, err := r.u8()
		if err != nil {
			return err
		}
		return e.push(uint64(int64(int8(v))))
	case opConst2s:
		v, err := r.u16()
		if err != nil {
			return err
		}
		return e.push(uint64(int64(int16(v))))
	case opConst4s:
		v, err := r.u32()
		if err != nil {
			return err
		}
		return e.push(uint64(int64(int32(v))))
	case opConst8s:
		v, err := r.u64()
		if err != nil {
			return err
		}
		return e.push(v)
	case opConstu:
		v, err := r.uleb()
		if err != nil {
			return err
		}
		return e.push(v)
	case opConsts:
		v, err := r.sleb()
		if err != nil {
			return err
		}
		return e.push(uint64(v))
	case opRegx:
		n, err := r.uleb()
		if err != nil {
			return err
		}
		v, err := e.reg(n)
		if err != nil {
			return err
		}
		return e.push(v)
	case opBregx:
		n, err := r.uleb()
		if err != nil {
			return err
		}
		off, err := r.sleb()
		if err != nil {
			return err
		}
		v, err := e.reg(n)
		if err != nil {
			return err
		}
		return e.push(v + uint64(off))
	case opDup:
		if len(e.stack) < 1 {
			return errors.New("stack underflow")
		}
		return e.push(e.stack[len(e.stack)-1])
	case opDrop:
		_, err := e.pop()
		return err
	case opOver:
		if len(e.stack) < 2 {
			return errors.New("stack underflow")
		}
		return e.push(e.stack[len(e.stack)-2])
	case opPick:
		idx, err := r.u8()
		if err != nil {
			return err
		}
		if int(idx) >= len(e.stack) {
			return fmt.Errorf("pick %d with %d values on the stack", idx, len(e.stack))
		}
		return e.push(e.stack[len(e.stack)-1-int(idx)])
	case opSwap:
		n := len(e.stack)
		if n < 2 {
			return errors.New("stack underflow")
		}
		e.stack[n-1], e.stack[n-2] = e.stack[n-2], e.stack[n-1]
		return nil
	case opRot:
		n := len(e.stack)
		if n < 3 {
			return errors.New("stack underflow")
		}
		// The top moves to third; the second and third move up.
		e.stack[n-1], e.stack[n-2], e.stack[n-3] = e.stack[n-2], e.stack[n-3], e.stack[n-1]
		return nil
	case opDeref, opDerefSize:
		size := e.ctx.PtrSize
		if op == opDerefSize {
			s, err := r.u8()
			if err != nil {
				return err
			}
			if s == 0 || int(s) > e.ctx.PtrSize {
				return fmt.Errorf("deref_size %d", s)
			}
			size = int(s)
		}
		addr, err := e.pop()
		if err != nil {
			return err
		}
		if e.ctx.ReadMem == nil {
			return errors.New("no memory accessor")
		}
		v, err := e.readSized(addr, size)
		if err != nil {
			return fmt.Errorf("read %d bytes at %#x: %w", size, addr, err)
		}
		return e.push(v)
	case opAbs, opNeg, opNot:
		v, err := e.pop()
		if err != nil {
			return err
		}
		switch op {
		case opAbs:
			if s := e.signed(v); s < 0 {
				v = uint64(-s)
			}
		case opNeg:
			v = uint64(-e.signed(v))
		case opNot:
			v = ^v
		}
		return e.push(v)
	case opPlusUconst:
		n, err := r.uleb()
		if err != nil {
			return err
		}
		v, err := e.pop()
		if err != nil {
			return err
		}
		return e.push(v + n)
	case opAnd, opDiv, opMinus, opMod, opMul, opOr, opPlus, opShl, opShr, opShra, opXor,
		opEq, opGe, opGt, opLe, opLt, opNe:
		b, err := e.pop()
		if err != nil {
			return err
		}
		a, err := e.pop()
		if err != nil {
			return err
		}
		v, err := e.binary(op, a, b)
		if err != nil {
			return err
		}
		return e.push(v)
	case opSkip, opBra:
		d, err := r.u16()
		if err != nil {
			return err
		}
		if op == opBra {
			v, err := e.pop()
			if err != nil {
				return err
			}
			if v == 0 {
				return nil
			}
		}
		target := r.pos + int(int16(d))
		if target < 0 || target > len(r.b) {
			return fmt.Errorf("branch target %d outside the expression", target)
		}
		r.pos = target
		return nil
	case opNop:
		return nil
	case opCallCFA:
		if !e.ctx.HasCFA {
			return errors.New("call_frame_cfa: the CFA is not known here")
		}
		return e.push(e.ctx.CFA)
	case opStackValue:
		// Marks the top as the value (DWARF 4); for CFI that is what the
		// result already is.
		return nil
	}
	return ErrExprUnsupported
}

func (e *evaluator) readSized(addr uint64, size int) (uint64, error) {
	v, err := e.ctx.ReadMem(addr, size)
	if err != nil {
		return 0, err
	}
	if size < 8 {
		v &= 1<<(8*uint(size)) - 1
	}
	return v, nil
}

func (e *evaluator) binary(op uint8, a, b uint64) (uint64, error) {
	sa, sb := e.signed(a), e.signed(b)
	bit := func(c bool) uint64 {
		if c {
			return 1
		}
		return 0
	}
	switch op {
	case opAnd:
		return a & b, nil
	case opOr:
		return a | b, nil
	case opXor:
		return a ^ b, nil
	case opPlus:
		return a + b, nil
	case opMinus:
		return a - b, nil
	case opMul:
		return a * b, nil
	case opDiv:
		if sb == 0 {
			return 0, errors.New("division by zero")
		}
		if sb == -1 {
			// Avoids the MinInt64 / -1 overflow trap.
			return uint64(-sa), nil
		}
		return uint64(sa / sb), nil
	case opMod:
		if b == 0 {
			return 0, errors.New("modulo by zero")
		}
		return a % b, nil
	case opShl:
		if b >= 64 {
			return 0, nil
		}
		return a << b, nil
	case opShr:
		if b >= 64 {
			return 0, nil
		}
		return a >> b, nil
	case opShra:
		if b >= 64 {
			b = 63
		}
		return uint64(sa >> b), nil
	case opEq:
		return bit(sa == sb), nil
	case opNe:
		return bit(sa != sb), nil
	case opLt:
		return bit(sa < sb), nil
	case opGt:
		return bit(sa > sb), nil
	case opLe:
		return bit(sa <= sb), nil
	case opGe:
		return bit(sa >= sb), nil
	}
	return 0, ErrExprUnsupported
}

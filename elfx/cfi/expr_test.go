package cfi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// fakeTarget is a little memory and register file for Eval.
type fakeTarget struct {
	mem  map[uint64]uint64 // 8-byte little-endian words by address
	regs map[uint64]uint64
}

func (f *fakeTarget) ctx(ptrSize int) *ExprContext {
	return &ExprContext{
		Order:   binary.LittleEndian,
		PtrSize: ptrSize,
		ReadMem: func(addr uint64, size int) (uint64, error) {
			v, ok := f.mem[addr]
			if !ok {
				return 0, fmt.Errorf("no memory at %#x", addr)
			}
			return v, nil
		},
		Reg: func(r uint64) (uint64, error) {
			v, ok := f.regs[r]
			if !ok {
				return 0, fmt.Errorf("no register %d", r)
			}
			return v, nil
		},
		CFA: 0xcfa0, HasCFA: true,
	}
}

func TestEval(t *testing.T) {
	tg := &fakeTarget{
		mem:  map[uint64]uint64{0x7100: 0x1122334455667788, 0x7008: 0xdead},
		regs: map[uint64]uint64{7: 0x7000, 6: 0x8000, 40: 5},
	}
	cases := []struct {
		name    string
		expr    []byte
		initial []uint64
		ptr     int
		want    uint64
		wantErr bool
	}{
		{"lit", []byte{0x30 + 17}, nil, 8, 17, false},
		{"const1u", []byte{0x08, 0xff}, nil, 8, 0xff, false},
		{"const1s", []byte{0x09, 0xff}, nil, 8, ^uint64(0), false},
		{"const2u", []byte{0x0a, 0x34, 0x12}, nil, 8, 0x1234, false},
		{"const2s", []byte{0x0b, 0xfe, 0xff}, nil, 8, ^uint64(1), false},
		{"const4u", []byte{0x0c, 1, 2, 3, 4}, nil, 8, 0x04030201, false},
		{"const4s", []byte{0x0d, 0xff, 0xff, 0xff, 0xff}, nil, 8, ^uint64(0), false},
		{"const8u", []byte{0x0e, 1, 0, 0, 0, 0, 0, 0, 0x80}, nil, 8, 0x8000000000000001, false},
		{"const8s", []byte{0x0f, 1, 0, 0, 0, 0, 0, 0, 0}, nil, 8, 1, false},
		{"constu", []byte{0x10, 0xe5, 0x8e, 0x26}, nil, 8, 624485, false},
		{"consts", []byte{0x11, 0x7f}, nil, 8, ^uint64(0), false},
		{"addr", []byte{0x03, 0x10, 0x20, 0, 0, 0, 0, 0, 0}, nil, 8, 0x2010, false},
		{"breg7+160 deref", []byte{0x77, 0x80, 0x02, 0x06}, nil, 8, 0x1122334455667788, false},
		{"bregx", []byte{0x92, 6, 0x70}, nil, 8, 0x8000 - 16, false},
		{"reg6", []byte{0x56}, nil, 8, 0x8000, false},
		{"regx 40", []byte{0x90, 40}, nil, 8, 5, false},
		{"deref_size 2", []byte{0x0c, 0x00, 0x71, 0, 0, 0x94, 2}, nil, 8, 0x7788, false},
		{"deref_size too big", []byte{0x0c, 0x00, 0x71, 0, 0, 0x94, 9}, nil, 8, 0, true},
		{"dup plus", []byte{0x33, 0x12, 0x22}, nil, 8, 6, false},
		{"drop", []byte{0x31, 0x32, 0x13}, nil, 8, 1, false},
		{"over", []byte{0x31, 0x32, 0x14}, nil, 8, 1, false},
		{"pick 2", []byte{0x31, 0x32, 0x33, 0x15, 2}, nil, 8, 1, false},
		{"pick out of range", []byte{0x31, 0x15, 1}, nil, 8, 0, true},
		{"swap minus", []byte{0x31, 0x35, 0x16, 0x1c}, nil, 8, 4, false}, // 5 - 1
		{"rot", []byte{0x31, 0x32, 0x33, 0x17, 0x13, 0x13}, nil, 8, 3, false},
		{"and", []byte{0x3c, 0x3a, 0x1a}, nil, 8, 8, false},
		{"or", []byte{0x3c, 0x33, 0x21}, nil, 8, 15, false},
		{"xor", []byte{0x3c, 0x3a, 0x27}, nil, 8, 6, false},
		{"mul", []byte{0x37, 0x36, 0x1e}, nil, 8, 42, false},
		{"div signed", []byte{0x11, 0x79, 0x32, 0x1b}, nil, 8, ^uint64(2) + 0, false}, // -7/2 = -3
		{"div by zero", []byte{0x31, 0x30, 0x1b}, nil, 8, 0, true},
		{"mod", []byte{0x37, 0x33, 0x1d}, nil, 8, 1, false},
		{"neg", []byte{0x35, 0x1f}, nil, 8, ^uint64(4), false},
		{"abs", []byte{0x11, 0x7b, 0x19}, nil, 8, 5, false},
		{"not", []byte{0x30, 0x20}, nil, 8, ^uint64(0), false},
		{"not 32-bit", []byte{0x30, 0x20}, nil, 4, 0xffffffff, false},
		{"plus_uconst", []byte{0x31, 0x23, 0x80, 0x01}, nil, 8, 129, false},
		{"shl", []byte{0x31, 0x34, 0x24}, nil, 8, 16, false},
		{"shr", []byte{0x11, 0x70, 0x31, 0x25}, nil, 8, 0x7ffffffffffffff8, false},
		{"shra", []byte{0x11, 0x70, 0x31, 0x26}, nil, 8, ^uint64(7), false},
		{"eq", []byte{0x33, 0x33, 0x29}, nil, 8, 1, false},
		{"ne", []byte{0x33, 0x33, 0x2e}, nil, 8, 0, false},
		{"lt signed", []byte{0x11, 0x7f, 0x31, 0x2d}, nil, 8, 1, false},
		{"gt", []byte{0x32, 0x31, 0x2b}, nil, 8, 1, false},
		{"le", []byte{0x32, 0x32, 0x2c}, nil, 8, 1, false},
		{"ge", []byte{0x31, 0x32, 0x2a}, nil, 8, 0, false},
		{"skip", []byte{0x31, 0x2f, 1, 0, 0x32}, nil, 8, 1, false},
		{"bra taken", []byte{0x35, 0x31, 0x28, 1, 0, 0x13}, nil, 8, 5, false},
		{"bra not taken", []byte{0x35, 0x30, 0x28, 1, 0, 0x13}, nil, 8, 0, true}, // drop empties the stack
		{"infinite loop", []byte{0x2f, 0xfd, 0xff}, nil, 8, 0, true},
		{"branch outside", []byte{0x2f, 0x10, 0}, nil, 8, 0, true},
		{"nop", []byte{0x96, 0x31}, nil, 8, 1, false},
		{"call_frame_cfa", []byte{0x9c}, nil, 8, 0xcfa0, false},
		{"initial CFA + 16", []byte{0x23, 16}, []uint64{0x9000}, 8, 0x9010, false},
		{"stack_value", []byte{0x31, 0x9f}, nil, 8, 1, false},
		{"empty", nil, nil, 8, 0, true},
		{"underflow", []byte{0x22}, nil, 8, 0, true},
		{"truncated", []byte{0x0c, 1}, nil, 8, 0, true},
		{"unknown reg", []byte{0x71, 0}, nil, 8, 0, true},
		{"unmapped", []byte{0x30, 0x06}, nil, 8, 0, true},
		{"fbreg unsupported", []byte{0x91, 0}, nil, 8, 0, true},
		{"32-bit wrap", []byte{0x0c, 0xff, 0xff, 0xff, 0xff, 0x23, 2}, nil, 4, 1, false},
	}
	for _, tc := range cases {
		got, err := Eval(tc.expr, tg.ctx(tc.ptr), tc.initial...)
		if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
			t.Errorf("%s: Eval(% x) = %#x, %v; want %#x (error %v)", tc.name, tc.expr, got, err, tc.want, tc.wantErr)
		}
	}
	if _, err := Eval([]byte{0x91, 0}, tg.ctx(8)); !errors.Is(err, ErrExprUnsupported) {
		t.Errorf("fbreg: %v, want ErrExprUnsupported", err)
	}
}

// TestLibcSigreturnTrampoline evaluates the CFI of glibc's __restore_rt
// (the only 'S' FDE on x86_64): its CFA is *(rsp + offset of the saved
// RSP in the ucontext) and every register is saved in the ucontext. The
// offsets are checked against offsetof() computed by the C compiler.
func TestLibcSigreturnTrampoline(t *testing.T) {
	const libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
	prog := buildProgram(t, "gcc", ".c", `
#define _GNU_SOURCE
#include <stdio.h>
#include <stddef.h>
#include <ucontext.h>
int main(void) {
	printf("%zu %zu %zu\n", offsetof(ucontext_t, uc_mcontext.gregs[REG_RSP]),
		offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP]),
		offsetof(ucontext_t, uc_mcontext.gregs[REG_RBX]));
	return 0;
}`)
	out, err := exec.Command(prog).Output()
	if err != nil {
		t.Fatal(err)
	}
	var off [3]uint64
	for i, f := range strings.Fields(string(out)) {
		off[i], _ = strconv.ParseUint(f, 10, 64)
	}
	secs, order, ptr := readSections(t, libc)
	tab, err := NewEHFrame(secs[".eh_frame"].data, secs[".eh_frame"].addr, secs[".eh_frame_hdr"].data, secs[".eh_frame_hdr"].addr, order, ptr)
	if err != nil {
		t.Fatal(err)
	}
	fdes, err := tab.FDEs()
	if err != nil {
		t.Fatal(err)
	}
	var sig []*FDE
	for _, f := range fdes {
		if f.Signal() {
			sig = append(sig, f)
		}
	}
	if len(sig) != 1 {
		t.Fatalf("%d signal FDEs in libc, want 1 (__restore_rt)", len(sig))
	}
	f := sig[0]
	// The FDE starts one byte early (a nop before __restore_rt) so that
	// a lookup of pc-1 finds it; FDEForPC must agree.
	if g, err := tab.FDEForPC(f.Begin + 1); err != nil || g.Offset != f.Offset {
		t.Fatalf("FDEForPC(%#x) = %v, %v", f.Begin+1, g, err)
	}
	row, err := f.RowAt(f.Begin + 1)
	if err != nil {
		t.Fatal(err)
	}
	const rsp = 0x7ffd0000
	tg := &fakeTarget{mem: map[uint64]uint64{rsp + off[0]: 0x7ffd1234}, regs: map[uint64]uint64{7: rsp}}
	ctx := tg.ctx(8)
	if row.CFA.Expr == nil {
		t.Fatal("CFA is not an expression")
	}
	cfa, err := Eval(row.CFA.Expr, ctx)
	if err != nil || cfa != 0x7ffd1234 {
		t.Fatalf("CFA = %#x, %v; want the saved rsp 0x7ffd1234", cfa, err)
	}
	for _, c := range []struct {
		reg uint64
		off uint64
	}{{16, off[1]}, {3, off[2]}} {
		rule := row.Rule(c.reg)
		if rule.Kind != Expression {
			t.Fatalf("r%d rule %v", c.reg, rule.Kind)
		}
		addr, err := Eval(rule.Expr, ctx, cfa)
		if err != nil || addr != rsp+c.off {
			t.Errorf("r%d saved at %#x, %v; want rsp+%d", c.reg, addr, err, c.off)
		}
	}
}

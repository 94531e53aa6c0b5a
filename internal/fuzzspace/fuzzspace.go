// Package fuzzspace is the address space the arch packages' fuzz tests
// step through: a real program's text and CFI at its link addresses
// (a static executable: no load bias) and a stack of fuzzer bytes, so
// that every path of a Step runs on hostile stack contents and registers.
// Tests only.
package fuzzspace

import (
	"encoding/binary"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/unwind"
)

// StackAddr is where the fuzzed stack is mapped.
const StackAddr = 0x7ff000000000

// Space is a little-endian 64-bit target: Text at TextAddr (code, with
// Obj's CFI) and Stack at StackAddr (data).
type Space struct {
	Obj      *elfx.Object
	Text     []byte
	TextAddr uint64
	Stack    []byte
}

var _ unwind.AddrSpace = (*Space)(nil)
var _ unwind.CodeChecker = (*Space)(nil)

func (s *Space) ByteOrder() binary.ByteOrder { return binary.LittleEndian }
func (s *Space) PtrSize() int                { return 8 }
func (s *Space) ReadMem(addr uint64, p []byte) error {
	for _, r := range []struct {
		b    []byte
		base uint64
	}{{s.Text, s.TextAddr}, {s.Stack, StackAddr}} {
		if addr >= r.base && addr-r.base < uint64(len(r.b)) && uint64(len(p)) <= uint64(len(r.b))-(addr-r.base) {
			copy(p, r.b[addr-r.base:])
			return nil
		}
	}
	return unwind.ErrUnavailable
}
func (s *Space) FindProcInfo(ip uint64) (*unwind.ProcInfo, error) {
	fde, err := s.Obj.FindFDE(ip)
	if err != nil || fde == nil {
		return nil, unwind.ErrNoInfo
	}
	return &unwind.ProcInfo{StartIP: fde.Begin, EndIP: fde.End, Format: unwind.FormatCFI, Info: fde}, nil
}
func (s *Space) ProcName(uint64) (string, uint64, error) { return "", 0, unwind.ErrNoInfo }
func (s *Space) DynInfoListAddr() (uint64, error)        { return 0, unwind.ErrNoInfo }
func (s *Space) IsCode(addr uint64) bool {
	return addr >= s.TextAddr && addr-s.TextAddr < uint64(len(s.Text))
}

// Text returns obj's .text as a Space's Text and its address.
func Text(obj *elfx.Object) ([]byte, uint64, error) {
	text := obj.ELF().Section(".text")
	if text == nil {
		return nil, 0, unwind.ErrNoInfo
	}
	code, err := text.Data()
	return code, text.Addr, err
}

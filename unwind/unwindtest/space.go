// Package unwindtest provides an in-memory unwind.AddrSpace for tests of
// the engine and the arch packages, as net/http/httptest does for
// handlers: memory made of byte regions (or read from a core), procedure
// lookups and names from functions the test supplies, and counts of the
// lookups so tests can check what the cache saves. Tests only.
package unwindtest

import (
	"encoding/binary"
	"fmt"

	"github.com/coreunwind/coreunwind/unwind"
)

// Region is target memory at Addr.
type Region struct {
	Addr uint64
	Data []byte
}

// Space is an unwind.AddrSpace over test data. The zero value is a
// little-endian 64-bit target with no memory and no unwind info.
type Space struct {
	Order binary.ByteOrder // nil: little-endian
	Ptr   int              // 0: 8
	// Mem is the target's memory; a read that any byte of misses fails
	// with unwind.ErrUnavailable. Put adds sparse bytes beside it.
	Mem   []Region
	bytes map[uint64]byte
	// Read, when set, is the target's memory instead of Mem (a core's
	// ReadMem, say).
	Read func(addr uint64, p []byte) error
	// Procs finds the procedure covering ip; nil: unwind.ErrNoInfo.
	Procs func(ip uint64) (*unwind.ProcInfo, error)
	// Names names the procedure covering ip; nil: unwind.ErrNoInfo.
	Names func(ip uint64) (string, uint64, error)
	// DynList is the dynamic unwind info list's address; 0: ErrNoInfo.
	DynList uint64
	// Code says whether addr is executable; nil: every readable byte is.
	Code func(addr uint64) bool

	// ProcLookups counts FindProcInfo calls.
	ProcLookups int
}

// ByteOrder is the target's byte order.
func (s *Space) ByteOrder() binary.ByteOrder {
	if s.Order == nil {
		return binary.LittleEndian
	}
	return s.Order
}

// PtrSize is the target's pointer size.
func (s *Space) PtrSize() int {
	if s.Ptr == 0 {
		return 8
	}
	return s.Ptr
}

// ReadMem fills p from the region holding all of [addr, addr+len(p)).
func (s *Space) ReadMem(addr uint64, p []byte) error {
	if s.Read != nil {
		return s.Read(addr, p)
	}
	for _, r := range s.Mem {
		if addr >= r.Addr && addr-r.Addr <= uint64(len(r.Data)) && uint64(len(p)) <= uint64(len(r.Data))-(addr-r.Addr) {
			copy(p, r.Data[addr-r.Addr:])
			return nil
		}
	}
	for i := range p {
		b, ok := s.bytes[addr+uint64(i)]
		if !ok {
			return fmt.Errorf("%#x: %w", addr+uint64(i), unwind.ErrUnavailable)
		}
		p[i] = b
	}
	return nil
}

// Put writes b at addr into sparse memory (a read may span several
// Puts; Mem regions are looked at first).
func (s *Space) Put(addr uint64, b []byte) {
	if s.bytes == nil {
		s.bytes = map[uint64]byte{}
	}
	for i, c := range b {
		s.bytes[addr+uint64(i)] = c
	}
}

// PutWord writes a word of the space's pointer size and byte order at
// addr.
func (s *Space) PutWord(addr, v uint64) { s.Put(addr, s.Words(0, v).Data) }

// FindProcInfo asks Procs.
func (s *Space) FindProcInfo(ip uint64) (*unwind.ProcInfo, error) {
	s.ProcLookups++
	if s.Procs == nil {
		return nil, unwind.ErrNoInfo
	}
	return s.Procs(ip)
}

// ProcName asks Names.
func (s *Space) ProcName(ip uint64) (string, uint64, error) {
	if s.Names == nil {
		return "", 0, unwind.ErrNoInfo
	}
	return s.Names(ip)
}

// DynInfoListAddr is DynList.
func (s *Space) DynInfoListAddr() (uint64, error) {
	if s.DynList == 0 {
		return 0, unwind.ErrNoInfo
	}
	return s.DynList, nil
}

// IsCode asks Code, or whether addr is readable.
func (s *Space) IsCode(addr uint64) bool {
	if s.Code != nil {
		return s.Code(addr)
	}
	var b [1]byte
	return s.ReadMem(addr, b[:]) == nil
}

// Words lays out words of the space's pointer size and byte order from
// addr on, as a Region: a stack or a table in a test.
func (s *Space) Words(addr uint64, words ...uint64) Region {
	w := s.PtrSize()
	b := make([]byte, w*len(words))
	for i, v := range words {
		if w == 4 {
			s.ByteOrder().PutUint32(b[4*i:], uint32(v))
		} else {
			s.ByteOrder().PutUint64(b[8*i:], v)
		}
	}
	return Region{Addr: addr, Data: b}
}

package exidx

import (
	"errors"
	"fmt"
)

// ErrCantUnwind: the entry is EXIDX_CANTUNWIND.
var ErrCantUnwind = errors.New("EXIDX_CANTUNWIND")

// Generic is the Unwind.PersonalityIndex of an entry with its own
// personality routine (a prel31 pointer, e.g. __gxx_personality_v0).
const Generic = -1

// Unwind is an entry's unwind data: which personality routine, and the
// opcodes it reads.
type Unwind struct {
	// PersonalityIndex is 0, 1 or 2 for the compact models
	// (__aeabi_unwind_cpp_pr0..2), or Generic.
	PersonalityIndex int
	// Personality is the generic routine's address (Generic only).
	Personality uint64
	// Code is the opcode bytes, in execution order.
	Code []byte
}

// Unwind reads the entry's unwind data: from the index word itself, or
// from its extab entry. For a generic personality the words after the
// routine's address are read as GCC's personalities lay them out (a
// count of further words in the top byte, then opcodes, as model 1),
// which is what __gxx_personality_v0 and __gcc_personality_v0 expect.
func (e *Entry) Unwind() (*Unwind, error) {
	switch e.Kind {
	case KindCantUnwind:
		return nil, ErrCantUnwind
	case KindInline:
		u := &Unwind{PersonalityIndex: int(e.Word >> 24 & 0x0f)}
		if u.PersonalityIndex != 0 {
			return u, fmt.Errorf("inline entry %#08x: personality index %d is not 0", e.Word, u.PersonalityIndex)
		}
		u.Code = []byte{byte(e.Word >> 16), byte(e.Word >> 8), byte(e.Word)}
		return u, nil
	}
	w0, ok := e.word(e.Extab)
	if !ok {
		return nil, fmt.Errorf("extab entry at %#x is outside .ARM.extab", e.Extab)
	}
	if w0&inlineBit == 0 {
		u := &Unwind{PersonalityIndex: Generic, Personality: uint64(uint32(int64(e.Extab) + prel31(w0)))}
		if r, ok := e.tab.relocs[e.Section][e.Extab]; ok {
			u.Personality = uint64(uint32(int64(r) + prel31(w0)))
		}
		w1, ok := e.word(e.Extab + 4)
		if !ok {
			return u, fmt.Errorf("extab entry at %#x: truncated after the personality routine", e.Extab)
		}
		code, err := e.compactWords(w1, int(w1>>24), e.Extab+8, 3)
		u.Code = code
		return u, err
	}
	u := &Unwind{PersonalityIndex: int(w0 >> 24 & 0x0f)}
	switch u.PersonalityIndex {
	case 0:
		u.Code = []byte{byte(w0 >> 16), byte(w0 >> 8), byte(w0)}
		return u, nil
	case 1, 2:
		code, err := e.compactWords(w0, int(w0>>16&0xff), e.Extab+4, 2)
		u.Code = code
		return u, err
	}
	return u, fmt.Errorf("extab entry at %#x: personality index %d is reserved", e.Extab, u.PersonalityIndex)
}

// compactWords collects opcodes: the low n bytes of first (most
// significant first), then those of count more words from addr.
func (e *Entry) compactWords(first uint32, count int, addr uint64, n int) ([]byte, error) {
	code := make([]byte, 0, n+4*count)
	for i := n - 1; i >= 0; i-- {
		code = append(code, byte(first>>(8*i)))
	}
	for i := 0; i < count; i++ {
		w, ok := e.word(addr + uint64(4*i))
		if !ok {
			return code, fmt.Errorf("extab entry at %#x: %d more words of opcodes, only %d readable", e.Extab, count, i)
		}
		code = append(code, byte(w>>24), byte(w>>16), byte(w>>8), byte(w))
	}
	return code, nil
}

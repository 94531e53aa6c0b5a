package crashinfo

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// The message of an uncaught std::runtime_error or std::logic_error (and
// of every class derived from them that keeps their what()), read from
// the thrown object in the core. Nothing is guessed: the object must be
// the exception's (its vtable names the exception's type_info), the type
// must derive from one of the two (its type_info's single-inheritance
// chain reaches them), and what() must be theirs (the vtable's what slot
// holds runtime_error::what or logic_error::what), so that the string
// the object holds is what what() returned.

// messageBase is a class whose objects hold their message right after
// the vptr (libstdc++'s __cow_string, libc++'s __libcpp_refstring: both a
// pointer to the characters of a reference-counted string whose header
// precedes them): its what()'s symbol, and its name for people.
type messageBase struct{ what, name string }

// messageBases are the message bases by the mangled name of their type.
var messageBases = map[string]messageBase{
	"St13runtime_error": {"_ZNKSt13runtime_error4whatEv", "std::runtime_error"},
	"St11logic_error":   {"_ZNKSt11logic_error4whatEv", "std::logic_error"},
}

const (
	// siClassTypeInfoVtable is the vtable of __si_class_type_info, the
	// type_info of a class with one public non-virtual base at offset 0;
	// its third word is the base's type_info.
	siClassTypeInfoVtable = "_ZTVN10__cxxabiv120__si_class_type_infoE"
	// maxTypeDepth bounds the walk up a type_info chain (a cycle in a
	// damaged core must not hang it).
	maxTypeDepth = 64
	// maxExceptionMsg bounds the bytes read of a message.
	maxExceptionMsg = 4096
	// vtableWhatSlot is what()'s index in std::exception's vtable, after
	// the complete and the deleting destructor.
	vtableWhatSlot = 2
	// unwindExceptionSize is sizeof(_Unwind_Exception): the 8-byte
	// exception class and three pointer-sized members (20 or 32 bytes),
	// the struct aligned to 16: 32 on LP64 and on i386. The thrown
	// object follows it.
	unwindExceptionSize = 32
)

// exceptionMessage records the what() message of the thrown object obj
// of type_info ti, when the core proves it; a detail says why not when
// the type has one but it cannot be read.
func (a *analysis) exceptionMessage(obj, ti uint64) {
	base, ok := a.messageBaseOf(ti)
	if !ok {
		return
	}
	msg, err := a.readWhat(obj, ti, base)
	if err != nil {
		a.c.Details = append(a.c.Details, fmt.Sprintf("the exception's what() message could not be read: %v", err))
		return
	}
	a.c.ExceptionMessage = &msg
}

// messageBaseOf returns the mangled name of the class of messageBases that
// type ti is or derives from through single inheritance.
func (a *analysis) messageBaseOf(ti uint64) (string, bool) {
	m := a.in.Mem
	siVptr, haveSI := uint64(0), false
	if a.in.DataSymbol != nil {
		if vt, ok := a.in.DataSymbol(siClassTypeInfoVtable); ok {
			siVptr, haveSI = vt+2*uint64(m.PtrSize()), true
		}
	}
	for range maxTypeDepth {
		name, err := mangledTypeName(m, ti)
		if err != nil {
			return "", false
		}
		if _, ok := messageBases[name]; ok {
			return name, true
		}
		vptr, err := readPtr(m, ti)
		if err != nil || !haveSI || vptr != siVptr {
			return "", false
		}
		if ti, err = readPtr(m, ti+2*uint64(m.PtrSize())); err != nil {
			return "", false
		}
	}
	return "", false
}

// readWhat reads the message of the object at obj of type ti, whose
// what() must be base's.
func (a *analysis) readWhat(obj, ti uint64, base string) (string, error) {
	m := a.in.Mem
	ps := uint64(m.PtrSize())
	vptr, err := readPtr(m, obj)
	if err != nil {
		return "", fmt.Errorf("exception object at %#x: %w", obj, err)
	}
	// The vtable's word before the virtual functions is the type_info.
	if vti, err := readPtr(m, vptr-ps); err != nil || vti != ti {
		return "", fmt.Errorf("exception object at %#x: its vtable %#x is not its type's", obj, vptr)
	}
	what, err := readPtr(m, vptr+vtableWhatSlot*ps)
	if err != nil {
		return "", fmt.Errorf("vtable at %#x: %w", vptr, err)
	}
	if a.in.CodeSymbol == nil {
		return "", fmt.Errorf("no symbols to find %s", base)
	}
	mb := messageBases[base]
	if want, ok := a.in.CodeSymbol(mb.what); !ok || want != what {
		return "", fmt.Errorf("the type overrides what() (%#x, not %s::what)", what, mb.name)
	}
	chars, err := readPtr(m, obj+ps)
	if err != nil {
		return "", fmt.Errorf("exception object at %#x: %w", obj, err)
	}
	return readRefString(m, chars)
}

// readRefString reads a reference-counted string by the pointer to its
// characters: libstdc++'s COW _Rep and libc++'s _Rep_base put the
// length, the capacity and the count (padded to a word) before them, and
// a NUL after.
func readRefString(m Memory, chars uint64) (string, error) {
	ps := uint64(m.PtrSize())
	n, err := readPtr(m, chars-3*ps)
	if err != nil {
		return "", fmt.Errorf("string header before %#x: %w", chars, err)
	}
	capacity, err := readPtr(m, chars-2*ps)
	if err != nil {
		return "", fmt.Errorf("string header before %#x: %w", chars, err)
	}
	if n > capacity {
		return "", fmt.Errorf("string at %#x: length %d exceeds its capacity %d", chars, n, capacity)
	}
	if n > maxExceptionMsg {
		return "", fmt.Errorf("string at %#x: %d bytes, more than %d", chars, n, maxExceptionMsg)
	}
	b := make([]byte, n+1)
	if err := m.ReadMem(chars, b); err != nil {
		return "", fmt.Errorf("string at %#x: %w", chars, err)
	}
	if b[n] != 0 {
		return "", fmt.Errorf("string at %#x: no NUL after its %d bytes", chars, n)
	}
	// what() returns c_str(): a NUL inside ends what it says.
	if i := bytes.IndexByte(b, 0); i < int(n) {
		b = b[:i]
	} else {
		b = b[:n]
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("string at %#x is not UTF-8", chars)
	}
	return string(b), nil
}

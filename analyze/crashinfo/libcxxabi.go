package crashinfo

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// LLVM's libc++abi (the C++ ABI library under libc++) keeps the thread's
// exception globals behind a pthread key, not in TLS that the DTV finds,
// and its functions between __cxa_throw and abort (failed_throw,
// std::__terminate, the demangling terminate handler, abort_message) are
// hidden: their frames have no names. The exception is found by what it
// is instead, on the stack of those frames, which hold its header in
// their saved registers and locals, and must prove itself: the header's
// exception class is libc++abi's, its handler count says it was caught
// (failed_throw's __cxa_begin_catch), its type_info names a type, and
// only one header on that stack is such.

// clangCxxClass is libc++abi's exception class of a primary C++
// exception, "CLNGC++\0".
const clangCxxClass = 0x434c4e47432b2b00

// libcxxabiTerminateHandler is a data symbol libc++abi defines and
// libstdc++ does not: the program's C++ ABI library is libc++abi.
const libcxxabiTerminateHandler = "__cxa_terminate_handler"

// cxaLayout is where libc++abi's __cxa_exception (cxa_exception.h) keeps
// what is read of it, relative to the header's start (where the eh
// globals' caughtExceptions points).
type cxaLayout struct {
	typeInfo     uint64 // exceptionType
	handlerCount uint64 // int handlerCount
	unwind       uint64 // _Unwind_Exception unwindHeader
}

// libcxxabiLayout is the __cxa_exception of pointer size ps. On LP64
// the struct starts with a reserved word and the reference count (so
// that the unwind header, aligned to 16, ends where the thrown object
// starts); on 32-bit targets the reference count sits before the
// unwind header instead. ARM's EHABI layout is not this one.
func libcxxabiLayout(ps uint64) cxaLayout {
	if ps == 8 {
		return cxaLayout{typeInfo: 16, handlerCount: 56, unwind: 96}
	}
	return cxaLayout{typeInfo: 0, handlerCount: 20, unwind: 48}
}

// thrownObject is where the object thrown follows its unwind header.
func (l cxaLayout) thrownObject() uint64 { return l.unwind + unwindExceptionSize }

// isLibcxxabi reports whether the program's C++ ABI library is
// libc++abi.
func (a *analysis) isLibcxxabi() bool {
	if a.in.DataSymbol == nil {
		return false
	}
	_, ok := a.in.DataSymbol(libcxxabiTerminateHandler)
	return ok
}

// libcxxabiException finds the header and type_info of the exception
// libc++abi's terminate handler was given, on the stack from frame 0 to
// frame throw's (__cxa_throw's).
func (a *analysis) libcxxabiException(throw int) (hdr, ti uint64, err error) {
	if a.in.Arch.Name() == "arm" {
		return 0, 0, errors.New("libc++abi's ARM EHABI exception layout is not read")
	}
	lo, hi, ok := a.stackBelow(throw)
	if !ok {
		return 0, 0, errors.New("the stack of the frames below __cxa_throw is not known")
	}
	m := a.in.Mem
	ps := uint64(m.PtrSize())
	l := libcxxabiLayout(ps)
	var found []uint64
	for _, w := range a.stackPtrWords(lo, hi) {
		// A pointer to the header, to its unwind header (what
		// __cxa_begin_catch is given), or to the thrown object.
		for _, off := range []uint64{0, l.unwind, l.thrownObject()} {
			h := w - off
			if w < off || slices.Contains(found, h) || !a.isLibcxxabiHeader(h, l) {
				continue
			}
			found = append(found, h)
		}
	}
	switch len(found) {
	case 0:
		return 0, 0, fmt.Errorf("no libc++abi exception header is on the stack between %#x and %#x", lo, hi)
	case 1:
	default:
		return 0, 0, fmt.Errorf("%d libc++abi exception headers are on the stack: none is reported", len(found))
	}
	ti, err = readPtr(m, found[0]+l.typeInfo)
	if err != nil {
		return 0, 0, err
	}
	return found[0], ti, nil
}

// isLibcxxabiHeader reports whether a caught libc++abi exception's
// header is at h.
func (a *analysis) isLibcxxabiHeader(h uint64, l cxaLayout) bool {
	m := a.in.Mem
	var cb [8]byte
	if m.ReadMem(h+l.unwind, cb[:]) != nil || m.ByteOrder().Uint64(cb[:]) != clangCxxClass {
		return false
	}
	var hc [4]byte
	if m.ReadMem(h+l.handlerCount, hc[:]) != nil {
		return false
	}
	if n := int32(m.ByteOrder().Uint32(hc[:])); n < 1 {
		return false
	}
	ti, err := readPtr(m, h+l.typeInfo)
	if err != nil || !a.readOnly(ti) {
		return false
	}
	_, err = mangledTypeName(m, ti)
	return err == nil
}

// libcxxabiCauses are the words libc++abi's demangling terminate handler
// passes for its first %s.
var libcxxabiCauses = []string{"uncaught", "unexpected"}

// libcxxabiFormats are the formats libc++abi's terminate handler has
// printed an exception derived from std::exception with (LLVM 17 said
// "due to" where earlier ones said "with"), after "libc++abi: ".
var libcxxabiFormats = []string{
	"terminating with %s exception of type %s: %s",
	"terminating due to %s exception of type %s: %s",
}

// maxFormatSearch bounds the bytes read around the cause's string to find
// the format beside it.
const maxFormatSearch = 64 << 10

// handlerWhat finds what() as libc++abi's terminate handler got it for
// an exception of type typ: the handler passes (cause, type name,
// what()) to abort_message, whose variadic arguments lie side by side on
// its stack (x86-64's and AArch64's register save area, i386's
// arguments). The cause must be one of libc++abi's, read-only, and the
// name the type's; the line is rebuilt with the format found in the
// same read-only memory as the cause.
func (a *analysis) handlerWhat(throw int, typ string) (msg, line string, ok bool) {
	lo, hi, ok := a.stackBelow(throw)
	if !ok {
		return "", "", false
	}
	words := a.stackPtrWords(lo, hi)
	var found []string
	for i := 0; i+2 < len(words); i++ {
		cause, ok := a.readCString(words[i], 16)
		if !ok || !slices.Contains(libcxxabiCauses, cause) || !a.readOnly(words[i]) {
			continue
		}
		if name, ok := a.readCString(words[i+1], maxTypeName); !ok || name != typ {
			continue
		}
		what, ok := a.readCString(words[i+2], maxExceptionMsg)
		if !ok {
			continue
		}
		format := a.formatNear(words[i])
		if format == "" {
			continue
		}
		l := "libc++abi: " + strings.Replace(strings.Replace(strings.Replace(format, "%s", cause, 1), "%s", typ, 1), "%s", what, 1)
		if !slices.Contains(found, l) {
			found = append(found, l)
			msg = what
		}
	}
	if len(found) != 1 {
		return "", "", false
	}
	return msg, found[0], true
}

// formatNear returns the one of libcxxabiFormats found in the read-only
// mapping of addr, within maxFormatSearch bytes of it.
func (a *analysis) formatNear(addr uint64) string {
	mp := a.mappingAt(addr)
	if mp == nil {
		return ""
	}
	start := max(uint64(mp.Start), addr-min(addr, maxFormatSearch/2))
	end := min(uint64(mp.End), start+maxFormatSearch)
	b := readUpTo(a.in.Mem, start, int(end-start))
	var found string
	for _, f := range libcxxabiFormats {
		if bytes.Contains(b, append([]byte(f), 0)) {
			if found != "" {
				return ""
			}
			found = f
		}
	}
	return found
}

// readCString reads a NUL-terminated UTF-8 string of at most n bytes at
// addr.
func (a *analysis) readCString(addr uint64, n int) (string, bool) {
	if addr == 0 || a.mappingAt(addr) == nil {
		return "", false
	}
	b := readUpTo(a.in.Mem, addr, n+1)
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return "", false
	}
	s := string(b[:i])
	if !isText(s) {
		return "", false
	}
	return s, true
}

// isText reports whether s is printable UTF-8 text (tabs and newlines
// allowed).
func isText(s string) bool {
	for _, r := range s {
		if r == 0xfffd || r < 0x20 && r != '\t' && r != '\n' {
			return false
		}
	}
	return true
}

// libcxxabiMessage records the what() of the thrown object obj of
// type_info ti and type typ, and the line libc++abi's terminate handler
// printed: what() from the object when its vtable proves it a
// runtime_error's or logic_error's, else (a type with a what() of its
// own) the string the handler got from it, found among its arguments.
func (a *analysis) libcxxabiMessage(obj, ti uint64, typ string, throw int) {
	a.exceptionMessage(obj, ti)
	msg, line, ok := a.handlerWhat(throw, typ)
	if !ok {
		return
	}
	if a.c.ExceptionMessage == nil {
		// The detail that said why the object did not give it.
		a.c.Details = slices.DeleteFunc(a.c.Details, func(d string) bool {
			return strings.HasPrefix(d, "the exception's what() message could not be read")
		})
		a.c.Details = append(a.c.Details, "the exception's what() message is the string libc++abi's terminate handler got from it")
		a.c.ExceptionMessage = &msg
	}
	if *a.c.ExceptionMessage == msg {
		a.c.TerminateMessage = &line
	}
}

// sameModule reports whether frames i to j are all in one module (the
// C++ ABI library's, from abort to __cxa_throw).
func (a *analysis) sameModule(i, j int) bool {
	fs := a.in.Frames
	if i > j || j >= len(fs) || fs[j].Module == nil {
		return false
	}
	for k := i; k < j; k++ {
		if fs[k].Module == nil || *fs[k].Module != *fs[j].Module {
			return false
		}
	}
	return true
}

package crashinfo

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// A Rust panic that aborted the process (panic=abort, or a hook that
// aborts, or a panic that cannot unwind) goes through std's
// panic_with_hook, which runs the hook that prints "thread 'name'
// panicked at FILE:LINE:COL:\nMESSAGE". Its location and message are
// values std keeps on the stack below the frame that panicked, not at
// places any debug information names: they are found by what they are,
// and each must prove itself.
//
// The location is a core::panic::Location, a static { file: &str, line:
// u32, col: u32 } that a pointer on the stack leads to: read-only, its
// file a read-only UTF-8 path ending in ".rs"; when the panicking frame
// has a line, the location must be that file and line.
//
// The message is the payload std passes as a &mut dyn PanicPayload: a
// (data, vtable) pair on the stack whose vtable's methods are those of
// one of std's payload types, named by the symbol tables: the &str of a
// StaticStrPayload or a begin_panic Payload<&str> (a literal message),
// or the String a FormatStringPayload formatted for the hook (a
// formatted one).

// panicHookFunctions are the names std has given the function that runs
// the panic hook.
var panicHookFunctions = []string{"std::panicking::panic_with_hook", "std::panicking::rust_panic_with_hook"}

// rustHash is the hash suffix of a legacy-mangled Rust symbol. This
// file's regexps are compiled by their first user, not at every start.
var rustHash = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`::h[0-9a-f]{16}$`) })

// panicMachinery reports whether fn is a function of std's panic
// machinery: below the frame that panicked.
func panicMachinery(fn string) bool {
	for _, p := range []string{"std::", "core::", "alloc::", "__rustc::", "rust_begin_unwind", "rust_panic", "__rust_", "<std::", "<core::", "<alloc::"} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

const (
	maxPanicMessage = 64 << 10
	maxPanicFile    = 4096
	maxPanicLine    = 10_000_000
	maxPanicColumn  = 100_000
)

// rustPanic explains an abort by Rust's panic machinery; false when the
// frames are not a panic's.
func (a *analysis) rustPanic() bool {
	hook := -1
	for _, name := range panicHookFunctions {
		if hook = a.frameNamed(name); hook >= 0 {
			break
		}
	}
	if hook < 0 || a.in.Mem.PtrSize() != 8 {
		return false
	}
	// The frame that panicked: the first after the hook's that is not
	// std's (the caller of a #[track_caller] panic function).
	user := -1
	for i := hook + 1; i < len(a.in.Frames); i++ {
		f := a.in.Frames[i]
		if f.Function == nil || !panicMachinery(rustName(*f.Function)) {
			user = i
			break
		}
	}
	a.c.Kind = "rust_panic"
	p := &rustPanicFacts{}
	p.thread, p.hasThread = a.rustThreadName()
	lo, hi, ok := a.stackBelow(user)
	if !ok {
		a.c.Details = append(a.c.Details, "the stack of the panic machinery's frames is not known: no location or message")
	} else {
		words := a.stackPtrWords(lo, hi)
		p.file, p.line, p.col = a.panicLocation(words, user)
		p.msg, p.hasMsg = a.panicMessage(words)
	}
	a.c.Summary = p.summary()
	if user > 0 {
		a.c.Summary += a.callerOf(user-1, ", in ")
	}
	if p.file != "" {
		loc := fmt.Sprintf("%s:%d:%d", p.file, p.line, p.col)
		a.c.PanicLocation = &loc
	}
	if p.hasMsg {
		a.c.PanicMessage = &p.msg
	}
	if p.hasThread {
		a.c.PanicThread = &p.thread
	}
	return true
}

// rustPanicFacts are what the core proved of a panic.
type rustPanicFacts struct {
	thread    string
	hasThread bool
	file      string
	line, col uint32
	msg       string
	hasMsg    bool
}

// summary says the panic in the default hook's words, with what is
// proven (the thread's name from std's handle: rustthread.go).
func (p *rustPanicFacts) summary() string {
	s := "Rust panic: panicked"
	if p.hasThread {
		s = "Rust panic: thread '" + p.thread + "' panicked"
	}
	if p.file != "" {
		s += fmt.Sprintf(" at %s:%d:%d", p.file, p.line, p.col)
	}
	if p.hasMsg {
		s += ": " + p.msg
	}
	return s
}

// rustName is a function name without a legacy mangling's hash.
func rustName(fn string) string { return rustHash().ReplaceAllString(fn, "") }

// readOnly reports whether addr is in a mapping the process cannot
// write.
func (a *analysis) readOnly(addr uint64) bool {
	m := a.mappingAt(addr)
	return m != nil && strings.HasPrefix(m.Perms, "r") && !strings.Contains(m.Perms, "w")
}

// panicLoc is a core::panic::Location's value.
type panicLoc struct {
	file      string
	line, col uint32
}

// panicLocation finds the Location a stack word points to; with the
// panicking frame's file and line, the one that is them.
func (a *analysis) panicLocation(words []uint64, user int) (file string, line, col uint32) {
	f := a.in.Frames[user]
	var found []panicLoc
	seen := map[uint64]bool{}
	for _, w := range words {
		if seen[w] || !a.readOnly(w) {
			continue
		}
		seen[w] = true
		l, ok := a.readLocation(w)
		if !ok {
			continue
		}
		if f.File != nil && f.Line != nil && (uint32(*f.Line) != l.line || !sameSourceFile(*f.File, l.file)) {
			continue
		}
		if !slices.Contains(found, l) {
			found = append(found, l)
		}
	}
	if len(found) != 1 {
		if len(found) > 1 {
			a.c.Details = append(a.c.Details, fmt.Sprintf("%d panic locations are on the stack: none is reported", len(found)))
		}
		return "", 0, 0
	}
	return found[0].file, found[0].line, found[0].col
}

// sameSourceFile reports whether the debug information's file (an
// absolute path, often) is the location's (the path rustc was given).
func sameSourceFile(debug, loc string) bool {
	return debug == loc || strings.HasSuffix(debug, "/"+strings.TrimPrefix(loc, "./"))
}

// readLocation reads a core::panic::Location at addr: { file pointer,
// file length, line, column }.
func (a *analysis) readLocation(addr uint64) (panicLoc, bool) {
	var b [24]byte
	m := a.in.Mem
	if m.ReadMem(addr, b[:]) != nil {
		return panicLoc{}, false
	}
	o := m.ByteOrder()
	ptr, n := o.Uint64(b[0:]), o.Uint64(b[8:])
	line, col := o.Uint32(b[16:]), o.Uint32(b[20:])
	if n < 4 || n > maxPanicFile || line == 0 || line > maxPanicLine || col == 0 || col > maxPanicColumn || !a.readOnly(ptr) {
		return panicLoc{}, false
	}
	s := make([]byte, n)
	if m.ReadMem(ptr, s) != nil {
		return panicLoc{}, false
	}
	// Newer std keeps the file NUL-terminated; the length may count it.
	s = []byte(strings.TrimSuffix(string(s), "\x00"))
	if !utf8.Valid(s) || !strings.HasSuffix(string(s), ".rs") || strings.ContainsRune(string(s), 0) {
		return panicLoc{}, false
	}
	return panicLoc{string(s), line, col}, true
}

// panicMessage finds the payload on the stack and reads its message.
func (a *analysis) panicMessage(words []uint64) (string, bool) {
	if a.in.FunctionAt == nil {
		return "", false
	}
	var found, unread []string
	for i := 0; i+1 < len(words); i++ {
		data, vtable := words[i], words[i+1]
		if !a.readOnly(vtable) {
			continue
		}
		kind, typ := a.payloadKind(vtable)
		if kind == "" {
			if typ != "" && !slices.Contains(unread, typ) {
				unread = append(unread, typ)
			}
			continue
		}
		msg, ok := a.readPayload(kind, data)
		if ok && !slices.Contains(found, msg) {
			found = append(found, msg)
		}
	}
	if len(found) == 0 {
		// A payload of a type whose layout is not known: a generic
		// one whose legacy-mangled symbols name its type parameter,
		// not the type (std 1.63's begin_panic::PanicPayload<A>).
		for _, typ := range unread {
			a.c.Details = append(a.c.Details, fmt.Sprintf("the panic payload is a %s, which the symbols do not say how to read: its message is not read", typ))
		}
	}
	if len(found) != 1 {
		if len(found) > 1 {
			a.c.Details = append(a.c.Details, fmt.Sprintf("%d panic messages are on the stack: none is reported", len(found)))
		}
		return "", false
	}
	return found[0], true
}

// Payload kinds: how the data of a payload holds its message.
const (
	payloadStr    = "str"    // a &str
	payloadString = "string" // a String
	payloadFormat = "format" // a String (None until formatted) beside a &fmt::Arguments
)

// payloadTypes are how std's payload types hold their message, by type
// name (std has named its module begin_panic_handler, later
// panic_handler).
var payloadTypes = map[string]string{
	"std::panicking::begin_panic_handler::StaticStrPayload":    payloadStr,
	"std::panicking::panic_handler::StaticStrPayload":          payloadStr,
	"std::panicking::begin_panic::Payload<&str>":               payloadStr,
	"std::panicking::begin_panic_handler::FormatStringPayload": payloadFormat,
	"std::panicking::panic_handler::FormatStringPayload":       payloadFormat,
	// Older std (1.63): the trait was BoxMeUp, and the payloads were
	// named StrPanicPayload and PanicPayload, the latter with the same
	// &fmt::Arguments and Option<String> as FormatStringPayload.
	"std::panicking::begin_panic_handler::StrPanicPayload": payloadStr,
	"std::panicking::begin_panic_handler::PanicPayload":    payloadFormat,
	// begin_panic's PanicPayload<&str> holds an Option<&str>, whose
	// None is a NULL pointer: a &str when there is a message.
	"std::panicking::begin_panic::PanicPayload<&str>": payloadStr,
}

// anyTypes are how the payload a hook is given (PanicHookInfo's &dyn
// Any: what the payload's get returned) holds the message, by the name
// of its vtable's type_id.
var anyTypes = map[string]string{
	"<&str as core::any::Any>::type_id":                  payloadStr,
	"<alloc::string::String as core::any::Any>::type_id": payloadString,
}

// payloadMethod is the demangled name of a payload type's method of
// PanicPayload (BoxMeUp in older std) or of its supertrait Display.
var payloadMethod = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^<(.+) as core::(?:panic::PanicPayload|panic::BoxMeUp|fmt::Display)>::[a-z_]+$`)
})

// payloadKind says how the data of a trait object whose vtable is at
// vtable holds a panic message, "" when it is none of std's payloads:
// a &dyn Any whose type_id (the first method, after drop, size and
// align) is one of anyTypes, or a &mut dyn PanicPayload whose methods
// (Display's fmt where PanicPayload has that supertrait, take_box, get,
// as_str) are at least two of one payload type's and none another's.
// typ is the payload type the methods name, also when its layout is not
// among payloadTypes.
func (a *analysis) payloadKind(vtable uint64) (kind, typ string) {
	methods := 0
	for slot := uint64(3); slot < 7; slot++ {
		fn, err := readPtr(a.in.Mem, vtable+8*slot)
		if err != nil {
			break
		}
		name, ok := a.in.FunctionAt(fn)
		if !ok {
			continue
		}
		name = rustName(name)
		if k, ok := anyTypes[name]; ok && slot == 3 {
			return k, ""
		}
		m := payloadMethod().FindStringSubmatch(name)
		if m == nil {
			continue
		}
		if typ != "" && m[1] != typ {
			return "", ""
		}
		typ = m[1]
		methods++
	}
	if methods < 2 {
		return "", ""
	}
	if generic, ok := a.dropType(vtable); ok && sameGenericType(typ, generic) {
		typ = generic
	}
	return payloadTypes[typ], typ
}

// dropInPlace is the demangled name of the drop glue of a type.
var dropInPlace = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^core::ptr::drop_in_place<(.+)>$`) })

// dropType is the type whose drop glue is a vtable's first entry. The
// drop glue's name spells out the type with its type arguments, where
// the legacy-mangled names of a generic impl's methods only have its
// parameters (rustc 1.63's begin_panic::PanicPayload<A>).
func (a *analysis) dropType(vtable uint64) (string, bool) {
	fn, err := readPtr(a.in.Mem, vtable)
	if err != nil || fn == 0 {
		return "", false
	}
	name, ok := a.in.FunctionAt(fn)
	if !ok {
		return "", false
	}
	m := dropInPlace().FindStringSubmatch(rustName(name))
	if m == nil {
		return "", false
	}
	return m[1], true
}

// sameGenericType reports whether the generic type typ (Path<A>) is the
// one that concrete (Path<&str>) instantiates.
func sameGenericType(typ, concrete string) bool {
	path, _, ok := strings.Cut(typ, "<")
	return ok && strings.HasPrefix(concrete, path+"<")
}

// readPayload reads the message of a payload of kind at data.
func (a *analysis) readPayload(kind string, data uint64) (string, bool) {
	need := map[string]int{payloadStr: 2, payloadString: 3, payloadFormat: 4}[kind]
	var w [4]uint64
	for i := range need {
		v, err := readPtr(a.in.Mem, data+8*uint64(i))
		if err != nil {
			return "", false
		}
		w[i] = v
	}
	switch kind {
	case payloadStr:
		return a.readRustStr(w[0], w[1])
	case payloadString:
		return a.readRustString(w[0], w[1], w[2])
	}
	// The String before or after the reference.
	if msg, ok := a.readRustString(w[0], w[1], w[2]); ok {
		return msg, true
	}
	return a.readRustString(w[1], w[2], w[3])
}

// readRustString reads a String from its three words: the capacity and
// the pointer in the order rustc chose, then the length.
func (a *analysis) readRustString(w0, w1, n uint64) (string, bool) {
	for _, cp := range [][2]uint64{{w0, w1}, {w1, w0}} {
		capacity, ptr := cp[0], cp[1]
		if n <= capacity && capacity <= maxPanicMessage && (capacity > 0 || n == 0) {
			if msg, ok := a.readRustStr(ptr, n); ok {
				return msg, true
			}
		}
	}
	return "", false
}

// readRustStr reads n bytes at ptr that must be UTF-8.
func (a *analysis) readRustStr(ptr, n uint64) (string, bool) {
	if n > maxPanicMessage || a.mappingAt(ptr) == nil {
		return "", false
	}
	b := make([]byte, n)
	if a.in.Mem.ReadMem(ptr, b) != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

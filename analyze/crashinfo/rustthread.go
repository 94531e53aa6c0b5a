package crashinfo

import (
	"bytes"
	"unicode/utf8"
)

// The name Rust's default panic hook prints ("thread 'order-worker'
// panicked at") is not in the core's notes (the kernel keeps only the
// process's comm); std keeps it in the thread's handle. std's
// thread-local CURRENT points to the handle's Inner (an Arc's data) of
// a thread that has one: a spawned thread, or one that asked for
// thread::current(). Inner's layout is rustc's choice, so its name is
// found by what it is: an Option<ThreadNameString>, whose CString is a
// (pointer, length) pair of bytes that end in their only NUL. A thread
// without a named handle is "main" when its id (std's thread-local ID)
// is the one std recorded for the main thread (MAIN), as Thread::name
// says. std before the handle moved to CURRENT (Debian 12's rustc 1.63)
// kept it in the thread-local THREAD_INFO, a RefCell<Option<ThreadInfo>>
// of which one word points to the handle's ArcInner (two counts, then
// Inner); there the main thread's handle is named "main" too.

const (
	rustCurrent  = "std::thread::current::CURRENT"
	rustThreadID = "std::thread::current::id::ID"
	rustMainID   = "std::thread::main_thread::MAIN"
	// rustCurrentSentinels: CURRENT's values that are not a handle
	// (NONE, BUSY, DESTROYED).
	rustCurrentSentinels = 2
	// rustThreadInfo: the old std's THREAD_INFO (a const-initialized
	// thread-local: VAL), threadInfoWords its size in words (a RefCell
	// of an Option of a Guard's range and the Thread) and arcCounts the
	// words of an ArcInner before its data.
	rustThreadInfo  = "std::sys_common::thread_info::THREAD_INFO::__getit::VAL"
	threadInfoWords = 5
	arcCounts       = 2
	// innerWords bounds the words of Inner searched for the name.
	innerWords    = 8
	maxThreadName = 4096
)

// rustThreadName returns the crashed thread's name as std's panic hook
// prints it, when the core proves it.
func (a *analysis) rustThreadName() (string, bool) {
	if a.in.ExeRustSymbol == nil {
		return "", false
	}
	if cur, ok := a.exeTLSWord(rustCurrent); ok && cur > rustCurrentSentinels {
		if name, ok := a.handleName(cur); ok {
			return name, true
		}
	}
	if name, ok := a.threadInfoName(); ok {
		return name, true
	}
	id, ok := a.exeTLSWord(rustThreadID)
	if !ok || id == 0 {
		return "", false
	}
	addr, tls, ok := a.in.ExeRustSymbol(rustMainID)
	if !ok || tls {
		return "", false
	}
	if main, err := readPtr(a.in.Mem, addr); err == nil && main == id {
		return "main", true
	}
	return "", false
}

// exeTLSWord reads the crashed thread's word of the executable's Rust
// thread-local path.
func (a *analysis) exeTLSWord(path string) (uint64, bool) {
	off, tls, ok := a.in.ExeRustSymbol(path)
	if !ok || !tls || a.in.ThreadPointer == nil {
		return 0, false
	}
	block, err := a.tlsBlock(1)
	if err != nil {
		return 0, false
	}
	v, err := readPtr(a.in.Mem, block+off)
	return v, err == nil
}

// threadInfoName finds the crashed thread's name in the old std's
// THREAD_INFO: the one word of it that points to an ArcInner whose Inner
// holds a name.
func (a *analysis) threadInfoName() (string, bool) {
	off, tls, ok := a.in.ExeRustSymbol(rustThreadInfo)
	if !ok || !tls || a.in.ThreadPointer == nil {
		return "", false
	}
	block, err := a.tlsBlock(1)
	if err != nil {
		return "", false
	}
	ps := uint64(a.in.Mem.PtrSize())
	var found []string
	for i := range uint64(threadInfoWords) {
		w, err := readPtr(a.in.Mem, block+off+i*ps)
		if err != nil {
			break
		}
		if w == 0 || a.mappingAt(w) == nil {
			continue
		}
		if name, ok := a.handleName(w + arcCounts*ps); ok {
			found = append(found, name)
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// handleName finds the one CString among the first words of the Inner at
// inner.
func (a *analysis) handleName(inner uint64) (string, bool) {
	ps := uint64(a.in.Mem.PtrSize())
	var words []uint64
	for i := range uint64(innerWords) {
		w, err := readPtr(a.in.Mem, inner+i*ps)
		if err != nil {
			break
		}
		words = append(words, w)
	}
	var found []string
	for i := 0; i+1 < len(words); i++ {
		if name, ok := a.readCStringBytes(words[i], words[i+1]); ok {
			found = append(found, name)
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// readCStringBytes reads a CString's n bytes at ptr: UTF-8 text whose
// only NUL is the last byte.
func (a *analysis) readCStringBytes(ptr, n uint64) (string, bool) {
	if n < 2 || n > maxThreadName || a.mappingAt(ptr) == nil {
		return "", false
	}
	b := make([]byte, n)
	if a.in.Mem.ReadMem(ptr, b) != nil || bytes.IndexByte(b, 0) != int(n-1) {
		return "", false
	}
	s := string(b[:n-1])
	if !utf8.ValidString(s) || !isText(s) {
		return "", false
	}
	return s, true
}

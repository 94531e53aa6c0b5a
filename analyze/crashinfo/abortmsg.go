package crashinfo

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// maxAbortMsg bounds the bytes read of an abort message: glibc's are a
// line or two.
const maxAbortMsg = 4096

// ReadAbortMsg reads glibc's abort message: __abort_msg (at symAddr) points
// to a struct abort_msg_s { unsigned int size; char msg[]; } that
// __libc_message (fatal library errors: "free(): double free detected in
// tcache 2", "*** stack smashing detected ***") and __assert_fail fill
// before calling abort. size is the whole allocation's (header included).
// ok is false when the pointer is NULL: abort() was called without one.
func ReadAbortMsg(m Memory, symAddr uint64) (msg string, ok bool, err error) {
	ptr, err := readPtr(m, symAddr)
	if err != nil {
		return "", false, fmt.Errorf("__abort_msg at %#x: %w", symAddr, err)
	}
	if ptr == 0 {
		return "", false, nil
	}
	var hdr [4]byte
	if err := m.ReadMem(ptr, hdr[:]); err != nil {
		return "", false, fmt.Errorf("abort message at %#x: %w", ptr, err)
	}
	size := uint64(m.ByteOrder().Uint32(hdr[:]))
	if size <= 4 {
		return "", false, errors.New("abort message: empty")
	}
	n := min(size-4, maxAbortMsg)
	b := readUpTo(m, ptr+4, int(n))
	if len(b) == 0 {
		return "", false, fmt.Errorf("abort message at %#x: not in the core", ptr+4)
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return strings.TrimRight(string(b), "\n"), true, nil
}

// readPtr reads one target pointer.
func readPtr(m Memory, addr uint64) (uint64, error) {
	var b [8]byte
	p := b[:m.PtrSize()]
	if err := m.ReadMem(addr, p); err != nil {
		return 0, err
	}
	if len(p) == 4 {
		return uint64(m.ByteOrder().Uint32(p)), nil
	}
	return m.ByteOrder().Uint64(p), nil
}

// readUpTo reads at most n bytes at addr: all of them if it can, else as
// far as the memory goes in whole 256-byte steps, then byte by byte.
func readUpTo(m Memory, addr uint64, n int) []byte {
	b := make([]byte, n)
	if m.ReadMem(addr, b) == nil {
		return b
	}
	got := 0
	for got < n {
		step := min(256, n-got)
		if m.ReadMem(addr+uint64(got), b[got:got+step]) != nil {
			break
		}
		got += step
	}
	for got < n && m.ReadMem(addr+uint64(got), b[got:got+1]) == nil {
		got++
	}
	return b[:got]
}

// abort explains SIGABRT: abort() with glibc's message, a failed
// assertion, std::terminate.
func (a *analysis) abort() {
	abortFrame := a.frameNamed("abort")
	if abortFrame < 0 {
		return // a SIGABRT sent by kill or raise, not abort()
	}
	if a.in.DataSymbol != nil {
		if addr, ok := a.in.DataSymbol("__abort_msg"); ok {
			msg, ok, err := ReadAbortMsg(a.in.Mem, addr)
			switch {
			case err != nil:
				a.c.Details = append(a.c.Details, fmt.Sprintf("glibc's abort message could not be read: %v", err))
			case ok:
				a.c.AbortMessage = &msg
				if strings.Contains(msg, "Assertion") && a.frameNamed("__assert_fail") >= 0 {
					a.c.Kind = "assertion"
					a.c.Summary = "assertion failed: " + msg
				} else {
					a.c.Kind = "abort_message"
					a.c.Summary = "abort() with message: " + msg
				}
				return
			}
		}
	}
	if t := a.frameNamed("std::terminate"); t >= 0 {
		a.terminate(t)
		return
	}
	// libc++abi's frames from __cxa_throw to abort are hidden symbols:
	// no std::terminate among the names.
	if th := a.frameNamed("__cxa_throw"); th > abortFrame && a.isLibcxxabi() && a.sameModule(abortFrame+1, th) {
		a.terminate(th - 1)
		return
	}
	if a.rustPanic() {
		return
	}
	a.c.Kind = "abort"
	a.c.Summary = "abort() called" + a.callerOf(abortFrame, " by ")
}

// frameNamed returns the index of the first frame of function name, -1
// if none. Names compare without parameters and without glibc's internal
// alias prefix (DWARF names abort "__GI_abort").
func (a *analysis) frameNamed(name string) int {
	for i, f := range a.in.Frames {
		if f.Function != nil && baseName(*f.Function) == name {
			return i
		}
	}
	return -1
}

func baseName(fn string) string {
	if i := strings.IndexByte(fn, '('); i > 0 {
		fn = fn[:i]
	}
	// libstdc++'s DWARF names its ABI functions in their namespace.
	return strings.TrimPrefix(strings.TrimPrefix(fn, "__GI_"), "__cxxabiv1::")
}

// callerOf names the frame after frame i, after prefix: " by main at
// prog.c:12"; "" when it has no name.
func (a *analysis) callerOf(i int, prefix string) string {
	if i+1 >= len(a.in.Frames) {
		return ""
	}
	f := a.in.Frames[i+1]
	if f.Function == nil {
		return ""
	}
	out := prefix + *f.Function
	if f.File != nil && f.Line != nil {
		out += fmt.Sprintf(" at %s:%d", *f.File, *f.Line)
	}
	return out
}

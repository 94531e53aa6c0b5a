package goruntime

// A fatal error ("fatal error: concurrent map writes", "all goroutines
// are asleep - deadlock!") is no panic: runtime.throw and runtime.fatal
// print their argument from a closure they run on the system stack, and
// die. The closure is built in their own frame: the word holding its
// function's pc, then the captured variables (the message, and in Go
// 1.26's fatal the panic being run before it). That frame, found by the
// walk, holds the message the runtime printed.

// The closures throw and fatal print their message from.
const (
	SymThrowClosure = "runtime.throw.func1"
	SymFatalClosure = "runtime.fatal.func1"
)

// maxFatalFrame bounds the frame searched for the closure.
const maxFatalFrame = 4096

// closureCaptures is how many words after the closure's pc may hold the
// message's string header.
const closureCaptures = 3

// FatalMessage finds the message of a fatal error in the frame of
// runtime.throw or runtime.fatal that spans [sp, cfa); ok is false when
// the frame holds no closure of theirs with a readable message.
func (r *Reader) FatalMessage(mem Memory, sp, cfa uint64) (msg string, ok bool) {
	if cfa <= sp || cfa-sp > maxFatalFrame {
		return "", false
	}
	var pcs []uint64
	for _, s := range []string{SymThrowClosure, SymFatalClosure} {
		if v, ok := r.b.Symbols[s]; ok {
			pcs = append(pcs, v+r.b.Bias)
		}
	}
	if len(pcs) == 0 {
		return "", false
	}
	ptr := uint64(r.b.PtrSize)
	buf := make([]byte, cfa-sp)
	if mem.ReadMem(sp, buf) != nil {
		return "", false
	}
	for off := uint64(0); off+ptr <= uint64(len(buf)); off += ptr {
		w := r.decodeWord(buf[off : off+ptr])
		if w != pcs[0] && (len(pcs) < 2 || w != pcs[1]) {
			continue
		}
		for k := uint64(1); k <= closureCaptures; k++ {
			if s, ok := r.str(mem, sp+off+k*ptr); ok && s != "" {
				return s, true
			}
		}
	}
	return "", false
}

package analyze

import (
	"fmt"
	"path/filepath"

	"github.com/coreunwind/coreunwind/unwind"
)

// MissingModuleError is why a walk stopped at a frame in a module whose
// file coreunwind lacks (not found, or refused for another build ID):
// without the file there is no unwind information for the frame and,
// unless the core holds the module's text, no code to analyze either; a
// caller found anyway (frame pointer, stack scan) is a guess that skips
// the module's own frames silently. The walk stops there, as gdb's does,
// and says what file would let it go on.
type MissingModuleError struct {
	PC     uint64 // the frame's pc, as its line shows it
	Module string // the module's path as the core records it
	Why    string // why there is no file, and how to give it
}

func (e *MissingModuleError) Error() string {
	return fmt.Sprintf("no unwind information for PC %#x in %s (%s)", e.PC, filepath.Base(e.Module), e.Why)
}

// Unwrap makes the error an unwind.ErrNoInfo.
func (e *MissingModuleError) Unwrap() error { return unwind.ErrNoInfo }

// missingModule returns the error for the frame at pc whose lookup
// address lies in a mapped file's module that has no object; nil for a
// module with an object, the vDSO, JIT code and addresses in no module.
// Only the interrupted frame (frame 0) whose caller the arch's fallback
// took from the link register (a leaf, or a call through a wild
// pointer, where nothing else says where it returns) is let go on, and
// only when the core holds the module's code that the fallback reads.
// A frame pointer or a stack scan there, or anywhere past frame 0,
// follows stale words of the missing module's frames (a scan through
// i386 glibc's qsort found its callback four times over), so a guessed
// caller stops the walk whether or not the core holds the code.
func (t *target) missingModule(pc, lookup uint64, linkRegister bool) *MissingModuleError {
	m := t.module(lookup)
	if m == nil || m.open == nil || m.obj() != nil || m.core.InCore {
		return nil
	}
	var code [1]byte
	if linkRegister && t.core.ReadMem(lookup, code[:]) == nil {
		return nil
	}
	why := m.core.Missing
	switch {
	case why != "":
	case m.openErr != nil:
		why = m.openErr.Error()
	default:
		why = "file not found"
	}
	return &MissingModuleError{PC: pc, Module: m.core.Path, Why: why}
}

// guessed reports whether a caller found with trust is a guess: without
// unwind information for its callee, a frame-pointer chain or a stack
// scan may skip frames or follow stale data.
func guessed(trust unwind.Trust) bool {
	return trust == unwind.TrustFramePointer || trust == unwind.TrustScan
}

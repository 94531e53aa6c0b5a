package ia64

import "github.com/coreunwind/coreunwind/unwind"

// Step finds callee's caller.
func (Arch) Step(as unwind.AddrSpace, cache *unwind.Cache, callee, caller *unwind.Frame, depth int) (unwind.StepResult, error) {
	return unwind.StepEnd, unwind.ErrNoInfo
}

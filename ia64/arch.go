package ia64

import "github.com/coreunwind/coreunwind/unwind"

// Arch is the IA-64 unwinder. It is stateless; what it learns about an
// address is kept in the caller's unwind.Cache.
type Arch struct{}

func init() { unwind.Register(Arch{}) }

func (Arch) Name() string         { return "ia64" }
func (Arch) NumRegs() int         { return NumRegs }
func (Arch) RegName(r int) string { return RegName(r) }
func (Arch) PCReg() int           { return IP }
func (Arch) SPReg() int           { return SP }

// FrameExtra tells frames apart by bsp: a recursive function that keeps
// its locals in stacked registers repeats (ip, sp) frame after frame.
func (Arch) FrameExtra(f *unwind.Frame) uint64 {
	v, _ := f.Get(BSP)
	return v
}

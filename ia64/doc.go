// Package ia64 unwinds IA-64 (Itanium) stacks: it reads the .IA_64.unwind
// table and its unwind-info blocks (both byte orders), decodes the unwind
// descriptor byte code (R1–R3, P1–P10, B1–B4, X1–X4), computes the frame
// state at an instruction slot as a cached script, and steps from a frame
// to its caller through the memory stack and the Register Stack Engine's
// backing store. It also builds frame 0 from Linux ia64 core register sets
// and from HP-UX IA-64 save areas (hpuxregs.go: the layout is an assumption
// no public source settles), and follows Linux and HP-UX signal frames.
// Tables of both data models are read: LP64 and HP-UX ILP32 (4-byte words).
//
// It knows nothing about other architectures or about core containers:
// corefile hands it raw register bytes, analyze hands it memory.
//
// Register numbering (Frame.Regs) is this package's own, compact one: see
// regs.go. BSP in a frame is where the frame's r32 is (or would be) stored
// in the backing store — the beginning of its register frame, as in
// libunwind — not the kernel's ar.bsp, which is the end of the frame.
package ia64

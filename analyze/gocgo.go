package analyze

import "github.com/coreunwind/coreunwind/unwind"

// A goroutine calling C (runtime.cgocall) switches to its thread's
// system stack in runtime.asmcgocall, which calls the C function there.
// The thread's walk (C frames by the native unwinder) ends at
// asmcgocall, whose unwind info does not know the switch; the
// goroutine, in status syscall, resumes where it entered the call
// (g.syscallpc and syscallsp). The two are one stack: the thread's
// frames continue with the goroutine's, as the runtime's own traceback
// and gdb's would if either could follow the switch.

// cgoCallers maps the g of each goroutine a thread is running C for to
// that thread's index in walks: a walk that ends in asmcgocall, which
// keeps the g at a fixed place of its frame (unwind.GoCgoArch). nil on
// arches whose asmcgocall is not known.
func cgoCallers(t *target, arch unwind.Arch, walks [][]rawFrame) map[uint64]int {
	ga, ok := arch.(unwind.GoCgoArch)
	if !ok {
		return nil
	}
	out := map[uint64]int{}
	for i, frames := range walks {
		if len(frames) == 0 {
			continue
		}
		last := frames[len(frames)-1]
		if f, ok := t.goFrameAt(last.lookup); !ok || !f.cgoCall || !last.hasSP {
			continue
		}
		var buf [8]byte
		p := buf[:t.PtrSize()]
		if t.ReadMem(last.sp+ga.GoCgoGSlot(), p) != nil {
			continue
		}
		g := uint64(t.ByteOrder().Uint32(p))
		if len(p) == 8 {
			g = t.ByteOrder().Uint64(p)
		}
		out[g] = i
	}
	return out
}

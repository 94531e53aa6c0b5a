package live

// The layout of the XSAVE areas (NT_X86_XSTATE) a core holds, as the
// kernel describes it since Linux 6.11 in a note of its own
// (NT_X86_XSAVE_LAYOUT): where each state component (AVX, AVX-512's
// parts, PKRU...) lies in the area. The offsets are the CPU's, from
// CPUID leaf 0xD, and differ between CPUs (AMD's Zen 4 puts AVX-512's
// registers where Intel's keep MPX's), so a reader cannot assume them;
// one written elsewhere says so.

const ntX86XSaveLayout = 0x205

// Where the XSAVE area ptrace gives holds the features it may hold
// (the kernel's user XCR0, in the FXSAVE part's software-reserved bytes:
// gdb reads it there too, I386_LINUX_XSAVE_XCR0_OFFSET).
const (
	xsaveXCR0       = 464
	legacyFeatures  = 3 // x87 and SSE, in the legacy area: always there
	firstExtFeature = 2
	maxXFeatures    = 64
)

// xsaveLayout is the NT_X86_XSAVE_LAYOUT of an XSAVE area the kernel
// gave: for each extended feature it holds, {type, size, offset,
// flags} as 32-bit words; nil when the area does not say which
// features it holds, or the host has no CPUID.
func xsaveLayout(xstate []byte) []byte {
	if !haveCPUID || len(xstate) < xsaveXCR0+8 {
		return nil
	}
	features := le.Uint64(xstate[xsaveXCR0:])
	if features&legacyFeatures != legacyFeatures {
		return nil // not an XCR0
	}
	var d []byte
	for i := firstExtFeature; i < maxXFeatures; i++ {
		if features&(1<<i) == 0 {
			continue
		}
		size, offset, _, _ := cpuid(0xd, uint32(i))
		if size == 0 {
			continue
		}
		d = le.AppendUint32(d, uint32(i))
		d = le.AppendUint32(d, size)
		d = le.AppendUint32(d, offset)
		d = le.AppendUint32(d, 0) // flags: reserved
	}
	return d
}

package live

// cpuid runs the CPUID instruction (cpuid_amd64.s).
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// haveCPUID: the host has CPUID, and the XSAVE layout can be described.
const haveCPUID = true

//go:build !amd64

package live

// cpuid is not available off x86_64 hosts (whose processes this package
// does not read anyway).
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32) { return 0, 0, 0, 0 }

const haveCPUID = false

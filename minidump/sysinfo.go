package minidump

import (
	"fmt"
	"strings"
)

// CPU is MINIDUMP_SYSTEM_INFO's ProcessorArchitecture.
type CPU uint16

// The processor architectures whose contexts this package reads, and the
// others a dump may name.
const (
	CPUX86      CPU = 0
	CPUMIPS     CPU = 1
	CPUPPC      CPU = 3
	CPUARM      CPU = 5
	CPUIA64     CPU = 6
	CPUAMD64    CPU = 9
	CPUARM64    CPU = 12     // Windows' and newer Breakpad's and Crashpad's
	CPUSPARC    CPU = 0x8001 // Breakpad's extensions from here on
	CPUPPC64    CPU = 0x8002
	CPUARM64Old CPU = 0x8003 // Breakpad's arm64 before Windows had one
	CPUMIPS64   CPU = 0x8004
	CPURISCV    CPU = 0x8005
	CPURISCV64  CPU = 0x8006
	CPUUnknown  CPU = 0xffff
)

var cpuNames = map[CPU]string{
	CPUX86: "x86", CPUMIPS: "mips", CPUPPC: "ppc", CPUARM: "arm", CPUIA64: "ia64",
	CPUAMD64: "amd64", CPUARM64: "arm64", CPUSPARC: "sparc", CPUPPC64: "ppc64",
	CPUARM64Old: "arm64", CPUMIPS64: "mips64", CPURISCV: "riscv", CPURISCV64: "riscv64",
}

// String names the CPU as minidump_stackwalk does ("amd64", "arm64").
func (c CPU) String() string {
	if s, ok := cpuNames[c]; ok {
		return s
	}
	return fmt.Sprintf("CPU(0x%x)", uint16(c))
}

// Platform is MINIDUMP_SYSTEM_INFO's PlatformId.
type Platform uint32

const (
	PlatformWindowsNT Platform = 2
	PlatformMacOS     Platform = 0x8101
	PlatformIOS       Platform = 0x8102
	PlatformLinux     Platform = 0x8201
	PlatformSolaris   Platform = 0x8202
	PlatformAndroid   Platform = 0x8203
	PlatformPS3       Platform = 0x8204
	PlatformNaCl      Platform = 0x8205
	PlatformFuchsia   Platform = 0x8206
)

var platformNames = map[Platform]string{
	PlatformWindowsNT: "Windows NT", PlatformMacOS: "Mac OS X", PlatformIOS: "iOS",
	PlatformLinux: "Linux", PlatformSolaris: "Solaris", PlatformAndroid: "Android",
	PlatformPS3: "PS3", PlatformNaCl: "NaCl", PlatformFuchsia: "Fuchsia",
}

func (p Platform) String() string {
	if s, ok := platformNames[p]; ok {
		return s
	}
	return fmt.Sprintf("Platform(0x%x)", uint32(p))
}

// SystemInfo is MINIDUMP_SYSTEM_INFO.
type SystemInfo struct {
	CPU                CPU
	ProcessorLevel     uint16
	ProcessorRevision  uint16
	NumberOfProcessors uint8
	ProductType        uint8
	MajorVersion       uint32
	MinorVersion       uint32
	BuildNumber        uint32
	Platform           Platform
	// CSDVersion is the service pack, or on Linux the kernel's uname
	// ("Linux 6.1.0 #1 SMP ... x86_64").
	CSDVersion string
	// Vendor is the x86 CPU vendor ("GenuineIntel"), "" on other CPUs.
	Vendor string
}

const systemInfoSize = 56

func (d *Dump) readSystemInfo(b []byte, off uint64) error {
	if len(b) < systemInfoSize {
		return formatErr(off, "%d bytes, want %d", len(b), systemInfoSize)
	}
	s := &SystemInfo{
		CPU: CPU(le.Uint16(b)), ProcessorLevel: le.Uint16(b[2:]), ProcessorRevision: le.Uint16(b[4:]),
		NumberOfProcessors: b[6], ProductType: b[7], MajorVersion: le.Uint32(b[8:]),
		MinorVersion: le.Uint32(b[12:]), BuildNumber: le.Uint32(b[16:]), Platform: Platform(le.Uint32(b[20:])),
	}
	d.System = s
	if s.CPU == CPUX86 || s.CPU == CPUAMD64 {
		s.Vendor = strings.TrimRight(string(b[32:44]), "\x00")
	}
	if rva := le.Uint32(b[24:]); rva != 0 {
		v, err := d.data.utf16String(rva)
		if err != nil {
			return fmt.Errorf("CSD version: %w", err)
		}
		s.CSDVersion = v
	}
	return nil
}

// OS names the dumped system's OS as minidump_stackwalk's JSON does
// ("Linux", "Android", "Windows NT").
func (s *SystemInfo) OS() string { return s.Platform.String() }

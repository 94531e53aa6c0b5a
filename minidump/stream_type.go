package minidump

import "fmt"

// StreamType is a MINIDUMP_STREAM_TYPE: what a directory entry holds.
type StreamType uint32

// The stream types this package reads, and the others a Linux minidump
// commonly carries (so that they print by name).
const (
	ThreadListStream     StreamType = 3
	ModuleListStream     StreamType = 4
	MemoryListStream     StreamType = 5
	ExceptionStream      StreamType = 6
	SystemInfoStream     StreamType = 7
	ThreadExListStream   StreamType = 8
	Memory64ListStream   StreamType = 9
	MiscInfoStream       StreamType = 15
	MemoryInfoListStream StreamType = 16
	ThreadInfoListStream StreamType = 17
	ThreadNamesStream    StreamType = 24

	BreakpadInfoStream  StreamType = 0x47670001
	AssertionInfoStream StreamType = 0x47670002
	LinuxCPUInfoStream  StreamType = 0x47670003 // /proc/cpuinfo
	LinuxProcStatus     StreamType = 0x47670004 // /proc/PID/status
	LinuxLSBRelease     StreamType = 0x47670005 // /etc/lsb-release
	LinuxCmdLine        StreamType = 0x47670006 // /proc/PID/cmdline
	LinuxEnviron        StreamType = 0x47670007 // /proc/PID/environ
	LinuxAuxv           StreamType = 0x47670008 // /proc/PID/auxv
	LinuxMaps           StreamType = 0x47670009 // /proc/PID/maps
	LinuxDSODebug       StreamType = 0x4767000A // MDRawDebug: the link map

	CrashpadInfoStream StreamType = 0x43500001
)

var streamTypeNames = map[StreamType]string{
	ThreadListStream: "ThreadListStream", ModuleListStream: "ModuleListStream",
	MemoryListStream: "MemoryListStream", ExceptionStream: "ExceptionStream",
	SystemInfoStream: "SystemInfoStream", ThreadExListStream: "ThreadExListStream",
	Memory64ListStream: "Memory64ListStream", MiscInfoStream: "MiscInfoStream",
	MemoryInfoListStream: "MemoryInfoListStream", ThreadInfoListStream: "ThreadInfoListStream",
	ThreadNamesStream: "ThreadNamesStream", BreakpadInfoStream: "BreakpadInfoStream",
	AssertionInfoStream: "AssertionInfoStream", LinuxCPUInfoStream: "LinuxCpuInfo",
	LinuxProcStatus: "LinuxProcStatus", LinuxLSBRelease: "LinuxLsbRelease",
	LinuxCmdLine: "LinuxCmdLine", LinuxEnviron: "LinuxEnviron", LinuxAuxv: "LinuxAuxv",
	LinuxMaps: "LinuxMaps", LinuxDSODebug: "LinuxDsoDebug", CrashpadInfoStream: "CrashpadInfoStream",
}

func (t StreamType) String() string {
	if s, ok := streamTypeNames[t]; ok {
		return s
	}
	return fmt.Sprintf("StreamType(0x%x)", uint32(t))
}

// Package mdtest adds to real minidumps what the tests' tools cannot
// write: Breakpad's core2md writes no Crashpad stream, and Crashpad is
// not at hand. Tests only.
package mdtest

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// crashpadInfoStream is MinidumpStreamType kCrashpadInfo.
const crashpadInfoStream = 0x43500001

// WithCrashpadInfo returns the minidump data with a CrashpadInfo stream
// added as Crashpad lays it out: the process's simple annotations
// (key/value pairs) and, for the module at index module of the module
// list, its list annotations and simple annotations. The stream and its
// strings go at the end, with a new stream directory of the old entries
// and the new one.
func WithCrashpadInfo(data []byte, process [][2]string, module uint32, list []string, simple [][2]string) ([]byte, error) {
	le := binary.LittleEndian
	if len(data) < 32 || string(data[:4]) != "MDMP" {
		return nil, fmt.Errorf("not a minidump")
	}
	n, dir := le.Uint32(data[8:]), le.Uint32(data[12:])
	if uint64(dir)+12*uint64(n) > uint64(len(data)) {
		return nil, fmt.Errorf("stream directory of %d entries at %#x past the end", n, dir)
	}
	out := slices.Clone(data)
	u32 := func(v uint32) { out = le.AppendUint32(out, v) }
	here := func() uint32 { return uint32(len(out)) }
	str := func(s string) uint32 { // MinidumpUTF8String, 4-aligned
		rva := here()
		u32(uint32(len(s)))
		out = append(append(out, s...), 0)
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
		return rva
	}
	dict := func(pairs [][2]string) (rva, size uint32) { // MinidumpSimpleStringDictionary
		var rvas []uint32
		for _, p := range pairs {
			rvas = append(rvas, str(p[0]), str(p[1]))
		}
		rva = here()
		u32(uint32(len(pairs)))
		for _, r := range rvas {
			u32(r)
		}
		return rva, here() - rva
	}
	procRVA, procSize := dict(process)
	simpleRVA, simpleSize := dict(simple)
	var listRVAs []uint32
	for _, s := range list {
		listRVAs = append(listRVAs, str(s))
	}
	listRVA := here() // MinidumpRVAList
	u32(uint32(len(list)))
	for _, r := range listRVAs {
		u32(r)
	}
	listSize := here() - listRVA
	modRVA := here() // MinidumpModuleCrashpadInfo
	u32(1)
	u32(listSize)
	u32(listRVA)
	u32(simpleSize)
	u32(simpleRVA)
	modSize := here() - modRVA
	linksRVA := here() // MinidumpModuleCrashpadInfoList
	u32(1)
	u32(module)
	u32(modSize)
	u32(modRVA)
	linksSize := here() - linksRVA
	infoRVA := here() // MinidumpCrashpadInfo
	u32(1)
	out = append(out, make([]byte, 32)...) // report and client ids
	u32(procSize)
	u32(procRVA)
	u32(linksSize)
	u32(linksRVA)
	infoSize := here() - infoRVA
	newDir := here()
	out = append(out, data[dir:dir+12*n]...)
	u32(crashpadInfoStream)
	u32(infoSize)
	u32(infoRVA)
	le.PutUint32(out[8:], n+1)
	le.PutUint32(out[12:], newDir)
	return out, nil
}

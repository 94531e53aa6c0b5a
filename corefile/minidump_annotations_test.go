package corefile

import (
	"encoding/binary"
	"os"
	"slices"
	"testing"

	"github.com/coreunwind/coreunwind/minidump"
)

// withCrashpadInfo returns the minidump data with a CrashpadInfo stream
// added, as Crashpad writes it: the process's simple annotations
// (key/value pairs), and for module 1 one list annotation and one
// simple annotation. The stream and its strings go at the end, with a
// new stream directory of the old entries and the new one.
func withCrashpadInfo(t *testing.T, data []byte, process [][2]string, moduleList string, moduleSimple [2]string) []byte {
	t.Helper()
	le := binary.LittleEndian
	out := slices.Clone(data)
	u32 := func(v uint32) { out = le.AppendUint32(out, v) }
	str := func(s string) uint32 {
		rva := uint32(len(out))
		u32(uint32(len(s)))
		out = append(append(out, s...), 0)
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
		return rva
	}
	dict := func(pairs [][2]string) (rva, size uint32) {
		var rvas []uint32
		for _, p := range pairs {
			rvas = append(rvas, str(p[0]), str(p[1]))
		}
		rva = uint32(len(out))
		u32(uint32(len(pairs)))
		for _, r := range rvas {
			u32(r)
		}
		return rva, uint32(len(out)) - rva
	}
	procRVA, procSize := dict(process)
	modRVA, modSize := dict([][2]string{moduleSimple})
	listStr := str(moduleList)
	listRVA := uint32(len(out))
	u32(1)
	u32(listStr)
	listSize := uint32(len(out)) - listRVA
	// MinidumpModuleCrashpadInfo: version, list annotations, simple
	// annotations.
	modInfoRVA := uint32(len(out))
	u32(1)
	u32(listSize)
	u32(listRVA)
	u32(modSize)
	u32(modRVA)
	modInfoSize := uint32(len(out)) - modInfoRVA
	// MinidumpModuleCrashpadInfoList: count, (module index, location).
	linksRVA := uint32(len(out))
	u32(1)
	u32(1)
	u32(modInfoSize)
	u32(modInfoRVA)
	linksSize := uint32(len(out)) - linksRVA
	infoRVA := uint32(len(out))
	u32(1)                                 // version
	out = append(out, make([]byte, 32)...) // report and client ids
	u32(procSize)
	u32(procRVA)
	u32(linksSize)
	u32(linksRVA)
	n, dir := le.Uint32(data[8:]), le.Uint32(data[12:])
	newDir := uint32(len(out))
	out = append(out, data[dir:dir+12*n]...)
	u32(uint32(minidump.CrashpadInfoStream))
	u32(52)
	u32(infoRVA)
	le.PutUint32(out[8:], n+1)
	le.PutUint32(out[12:], newDir)
	return out
}

// TestMinidumpAnnotations: Crashpad's annotations become the core's, the
// process's first, then the module's list and simple ones under the
// module's name.
func TestMinidumpAnnotations(t *testing.T) {
	data, err := os.ReadFile(minidumpSeed)
	if err != nil {
		t.Fatal(err)
	}
	d, err := minidump.Parse(data)
	if err != nil || len(d.Modules) < 2 {
		t.Fatalf("seed: %v, %d modules", err, len(d.Modules))
	}
	data = withCrashpadInfo(t, data, [][2]string{{"ver", "1.2.3"}, {"channel", "beta"}}, "list entry", [2]string{"plugin", "on"})
	c, err := OpenBytes(data, Options{Sysroot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mod := d.Modules[1].Name
	want := []Annotation{{Key: "ver", Value: "1.2.3"}, {Key: "channel", Value: "beta"},
		{Module: mod, Value: "list entry", List: true}, {Module: mod, Key: "plugin", Value: "on"}}
	if !slices.Equal(c.Annotations, want) {
		t.Errorf("annotations %+v, want %+v", c.Annotations, want)
	}
}

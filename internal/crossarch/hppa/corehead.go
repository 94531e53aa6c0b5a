package hppa

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/crossarch/hpux"
)

// WriteCorehead writes what CrashUnderGDB recorded as a 32-bit HP-UX
// corehead core (dir/core.hpux): the kernel and format records, one
// CORE_PROC per thread (narrow save_state_t from the Linux register slots:
// gr1..gr31, pcoq head and tail, ipsw), and the memory runs as CORE_DATA
// records (CORE_STACK for the runs holding a thread's sp). The program is
// a Linux one; the unwinder does not care which kernel dumped it.
func WriteCorehead(t testing.TB, dir string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "dump", "facts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f facts
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	recs := []hpux.Record{
		{Type: hpux.CoreFormat, Data: []byte{0, 0, 0, 1}},
		{Type: hpux.CoreKernel, Data: []byte("HP-UX\x00B.11.11\x00")},
	}
	var sps []uint64
	for i, th := range f.Threads {
		var r hpux.PARegs
		for n := 1; n < 32; n++ {
			r.Slots[n] = th.GRegs[n]
		}
		r.Slots[hpux.SlotPCOQHead] = th.GRegs[40]
		r.Slots[hpux.SlotPCOQTail] = th.GRegs[41]
		r.Slots[hpux.SlotIPSW] = th.GRegs[0]
		sig := int32(-1)
		if i == 0 {
			sig = int32(signalNumbers[f.Signal])
		}
		recs = append(recs, hpux.Record{Type: hpux.CoreProc, Data: hpux.ProcInfo(sig, 0, r.SaveState(), uint32(th.TID))})
		sps = append(sps, th.GRegs[30])
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "dump"))
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	for _, e := range ents {
		a, ok := strings.CutPrefix(e.Name(), "mem-")
		if !ok {
			continue
		}
		addr, _ := strconv.ParseUint(a, 16, 64)
		data, _ := os.ReadFile(filepath.Join(dir, "dump", e.Name()))
		typ := int32(hpux.CoreData)
		if executable(f.Maps, addr) {
			typ = hpux.CoreText
		}
		for _, sp := range sps {
			if addr <= sp && sp < addr+uint64(len(data)) {
				typ = hpux.CoreStack
			}
		}
		recs = append(recs, hpux.Record{Type: typ, Addr: uint32(addr), Data: data})
	}
	p := filepath.Join(dir, "core.hpux")
	if err := os.WriteFile(p, hpux.Corehead(recs), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// executable reports whether /proc/self/maps text says addr is in an
// executable mapping.
func executable(maps string, addr uint64) bool {
	for _, line := range strings.Split(maps, "\n") {
		var s, e uint64
		var perm string
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		se := strings.SplitN(fields[0], "-", 2)
		if len(se) != 2 {
			continue
		}
		s, _ = strconv.ParseUint(se[0], 16, 64)
		e, _ = strconv.ParseUint(se[1], 16, 64)
		perm = fields[1]
		if s <= addr && addr < e {
			return strings.Contains(perm, "x")
		}
	}
	return false
}

package hppa

import (
	"debug/elf"
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

// MachineCorehead writes the interpreter's state as a 32-bit HP-UX
// corehead core: the format and kernel records, one CORE_PROC with the
// narrow save_state_t, then each memory run as CORE_TEXT (inside an
// executable PT_LOAD of exe), CORE_STACK (holding sp) or CORE_DATA.
func MachineCorehead(m *Machine, exe *elf.File, sig int) []byte {
	var r hpux.PARegs
	for n := 1; n < 32; n++ {
		r.Slots[n] = m.GR[n] & 0xffffffff
	}
	r.Slots[hpux.SlotPCOQHead] = m.PC | 3
	r.Slots[hpux.SlotPCOQTail] = m.NPC | 3
	if m.nullifyNext {
		r.Slots[hpux.SlotIPSW] = PSWNullify
	}
	recs := []hpux.Record{
		{Type: hpux.CoreFormat, Data: []byte{0, 0, 0, 1}},
		{Type: hpux.CoreKernel, Data: []byte("HP-UX\x00B.11.11\x00")},
		{Type: hpux.CoreProc, Data: hpux.ProcInfo(int32(sig), 0, r.SaveState(), 1)},
	}
	sp := m.GR[30]
	for _, run := range m.Runs() {
		data := make([]byte, run[1]-run[0])
		m.Read(run[0], data)
		typ := int32(hpux.CoreData)
		for _, p := range exe.Progs {
			if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 && p.Vaddr < run[1] && run[0] < p.Vaddr+p.Memsz {
				typ = hpux.CoreText
			}
		}
		if run[0] <= sp && sp < run[1] {
			typ = hpux.CoreStack
		}
		recs = append(recs, hpux.Record{Type: typ, Addr: uint32(run[0]), Data: data})
	}
	return hpux.Corehead(recs)
}

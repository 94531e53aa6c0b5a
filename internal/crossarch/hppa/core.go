package hppa

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/elfcore"
)

var be = binary.BigEndian

// facts is what dump_process.py recorded.
type facts struct {
	Signal  string `json:"signal"`
	Threads []struct {
		TID    int      `json:"tid"`
		GRegs  []uint64 `json:"gregs"`
		FPRegs []uint64 `json:"fpregs"`
	} `json:"threads"`
	EntryFRegs map[string][]uint64 `json:"entry_fregs"`
	Maps       string              `json:"maps"` // /proc/self/maps without the dump's scratch buffer
	Auxv       string              `json:"auxv"`
	Cmdline    string              `json:"cmdline"`
}

var signalNumbers = map[string]int{"SIGILL": 4, "SIGTRAP": 5, "SIGABRT": 6, "SIGFPE": 8, "SIGBUS": 10, "SIGSEGV": 11, "SIGSYS": 31}

// WriteCore writes dir/core, an ELF32 big-endian parisc core laid out as
// the Linux kernel writes one (ELFOSABI_LINUX; per thread NT_PRSTATUS of
// 396 bytes with pr_reg at 72; NT_PRPSINFO, NT_AUXV and NT_FILE after the
// first; a PT_LOAD per mapping), from what CrashUnderGDB recorded. Paths
// under the sysroot are recorded as the guest saw them (/lib/libc.so.6).
func WriteCore(t testing.TB, dir string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "dump", "facts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f facts
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	runs := map[uint64][]byte{}
	ents, _ := os.ReadDir(filepath.Join(dir, "dump"))
	for _, e := range ents {
		if a, ok := strings.CutPrefix(e.Name(), "mem-"); ok {
			addr, _ := strconv.ParseUint(a, 16, 64)
			runs[addr], _ = os.ReadFile(filepath.Join(dir, "dump", e.Name()))
		}
	}
	type mapping struct {
		start, end, off uint64
		perm, name      string
	}
	var maps []mapping
	re := regexp.MustCompile(`^([0-9a-f]+)-([0-9a-f]+) (\S+) ([0-9a-f]+) \S+ \d+\s*(.*)$`)
	for _, line := range strings.Split(f.Maps, "\n") {
		m := re.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s, _ := strconv.ParseUint(m[1], 16, 64)
		e, _ := strconv.ParseUint(m[2], 16, 64)
		o, _ := strconv.ParseUint(m[4], 16, 64)
		maps = append(maps, mapping{s, e, o, m[3], strings.TrimPrefix(m[5], Sysroot)})
	}
	sort.Slice(maps, func(i, j int) bool { return maps[i].start < maps[j].start })

	core := &elfcore.File{Class: elf.ELFCLASS32, Order: be, Machine: elf.EM_PARISC, OSABI: elf.ELFOSABI_LINUX, Align: 0x1000}
	note := func(typ uint32, desc []byte) {
		core.Notes = append(core.Notes, elfcore.Note{Name: "CORE", Type: typ, Desc: desc})
	}
	pid := f.Threads[0].TID
	args := bytes.Split(bytes.TrimRight(mustHex(f.Cmdline), "\x00"), []byte{0})
	for i, th := range f.Threads {
		d := make([]byte, 396)
		if i == 0 {
			sig := signalNumbers[f.Signal]
			be.PutUint32(d[0:], uint32(sig))
			be.PutUint16(d[12:], uint16(sig))
		}
		be.PutUint32(d[24:], uint32(th.TID))
		be.PutUint32(d[32:], uint32(pid))
		be.PutUint32(d[36:], uint32(pid))
		for k, v := range th.GRegs {
			if k < 80 {
				be.PutUint32(d[72+4*k:], uint32(v))
			}
		}
		note(1, d)
		if len(th.FPRegs) == 32 {
			fp := make([]byte, 8*32)
			for k, v := range th.FPRegs {
				be.PutUint64(fp[8*k:], v)
			}
			note(2, fp) // NT_PRFPREG, after its thread's NT_PRSTATUS
		}
		if i > 0 {
			continue
		}
		ps := make([]byte, 128)
		ps[1] = 'R'
		be.PutUint32(ps[16:], uint32(pid))
		copy(ps[32:47], filepath.Base(string(args[0])))
		copy(ps[48:127], bytes.Join(args, []byte(" ")))
		note(3, ps)
		note(6, mustHex(f.Auxv))
		var nf bytes.Buffer
		var names []string
		var triples []uint32
		for _, m := range maps {
			if strings.HasPrefix(m.name, "/") {
				triples = append(triples, uint32(m.start), uint32(m.end), uint32(m.off/0x1000))
				names = append(names, m.name)
			}
		}
		binary.Write(&nf, be, []uint32{uint32(len(names)), 0x1000})
		binary.Write(&nf, be, triples)
		for _, n := range names {
			nf.WriteString(n + "\x00")
		}
		note(0x46494c45, nf.Bytes())
	}

	for _, m := range maps {
		var flags elf.ProgFlag
		for c, bit := range map[byte]elf.ProgFlag{'r': elf.PF_R, 'w': elf.PF_W, 'x': elf.PF_X} {
			if strings.IndexByte(m.perm, c) >= 0 {
				flags |= bit
			}
		}
		data := runs[m.start]
		if uint64(len(data)) > m.end-m.start {
			data = data[:m.end-m.start]
		}
		end := m.end
		if !strings.HasPrefix(m.name, "/") && len(data) > 0 && m.start+uint64(len(data)) < end && m.perm[1] == 'w' {
			// A stack dumped up to sp + slack: presented as that long.
			end = m.start + uint64(len(data))
		}
		core.Segments = append(core.Segments, elfcore.Segment{Flags: flags, Vaddr: m.start, Memsz: end - m.start, Data: data})
	}
	p := filepath.Join(dir, "core")
	if err := core.Write(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// EntryFRs returns fr0..fr31 as gdb saw them at the first instruction of
// each function CrashUnderGDBWith was asked to watch (the last call).
func EntryFRs(t testing.TB, dir string) map[string][]uint64 {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "dump", "facts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f facts
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f.EntryFRegs
}

func mustHex(s string) []byte {
	b, _ := hex.DecodeString(s)
	return b
}

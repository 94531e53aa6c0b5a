package testenv

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ProcFromCore writes into dir the /proc/PID files of the process a core
// was dumped from, as far as the core records them, for Breakpad's
// core2md, which reads a dead process's procfs from such a copy:
// status and cmdline from NT_PRPSINFO (its 80 bytes of arguments, split
// at spaces), auxv from NT_AUXV, and maps with a line per PT_LOAD
// segment (the kernel writes one per mapping), named and offset by
// NT_FILE where the core has one (qemu-user's cores do not). The files
// are synthesized: nothing here ran in the process.
func ProcFromCore(t testing.TB, core, dir string) {
	t.Helper()
	f, err := elf.Open(core)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	word := 8
	if f.Class == elf.ELFCLASS32 {
		word = 4
	}
	order := f.ByteOrder
	readWord := func(b []byte) uint64 {
		if word == 4 {
			return uint64(order.Uint32(b))
		}
		return order.Uint64(b)
	}
	files := map[string][]byte{"environ": nil}
	type fileMapping struct {
		off  uint64
		name string
	}
	named := map[uint64]fileMapping{}
	for _, n := range coreNotes(t, f) {
		switch n.typ {
		case uint32(elf.NT_PRPSINFO):
			files["status"], files["cmdline"] = prpsinfoFiles(t, core, n.desc, order)
		case 6: // NT_AUXV
			files["auxv"] = n.desc
		case 0x46494c45: // NT_FILE: count, page size, count (start, end, page offset), names
			d := n.desc
			if len(d) < 2*word {
				t.Fatalf("%s: NT_FILE of %d bytes", core, len(d))
			}
			count, page := readWord(d), readWord(d[word:])
			ranges := d[2*word:]
			if uint64(len(ranges)) < count*3*uint64(word) {
				t.Fatalf("%s: NT_FILE: %d mappings in %d bytes", core, count, len(d))
			}
			names := strings.Split(string(ranges[count*3*uint64(word):]), "\x00")
			for i := uint64(0); i < count && i < uint64(len(names)); i++ {
				e := ranges[i*3*uint64(word):]
				named[readWord(e)] = fileMapping{readWord(e[2*word:]) * page, names[i]}
			}
		}
	}
	if files["status"] == nil {
		t.Fatalf("%s has no NT_PRPSINFO", core)
	}
	var maps strings.Builder
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		perms := []byte("---p")
		for i, fl := range []elf.ProgFlag{elf.PF_R, elf.PF_W, elf.PF_X} {
			if p.Flags&fl != 0 {
				perms[i] = "rwx"[i]
			}
		}
		m := named[p.Vaddr]
		fmt.Fprintf(&maps, "%08x-%08x %s %08x 00:00 0 %s\n", p.Vaddr, p.Vaddr+p.Memsz, perms, m.off, m.name)
	}
	files["maps"] = []byte(maps.String())
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type coreNote struct {
	typ  uint32
	desc []byte
}

// coreNotes are the notes of f's PT_NOTE segments.
func coreNotes(t testing.TB, f *elf.File) []coreNote {
	t.Helper()
	var out []coreNote
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		b := make([]byte, p.Filesz)
		if _, err := p.ReadAt(b, 0); err != nil {
			t.Fatal(err)
		}
		for len(b) >= 12 {
			namesz, descsz, typ := f.ByteOrder.Uint32(b), f.ByteOrder.Uint32(b[4:]), f.ByteOrder.Uint32(b[8:])
			off := 12 + uint64(namesz+3)&^3
			end := off + uint64(descsz+3)&^3
			if end > uint64(len(b)) || off+uint64(descsz) > uint64(len(b)) {
				break
			}
			out = append(out, coreNote{typ, b[off : off+uint64(descsz)]})
			b = b[end:]
		}
	}
	return out
}

// prpsinfoFiles makes status and cmdline from an elf_prpsinfo: a 64-bit
// process's (136 bytes: 32-bit uids), or a 32-bit one's (124 bytes:
// 16-bit uids, as i386 compat and arm cores have them).
func prpsinfoFiles(t testing.TB, core string, d []byte, order binary.ByteOrder) (status, cmdline []byte) {
	t.Helper()
	var uid, pid, ppid uint32
	var fname, psargs []byte
	switch len(d) {
	case 136:
		uid, pid, ppid, fname, psargs = order.Uint32(d[16:]), order.Uint32(d[24:]), order.Uint32(d[28:]), d[40:56], d[56:136]
	case 124:
		uid, pid, ppid, fname, psargs = uint32(order.Uint16(d[8:])), order.Uint32(d[12:]), order.Uint32(d[16:]), d[28:44], d[44:124]
	default:
		t.Fatalf("%s: NT_PRPSINFO of %d bytes", core, len(d))
	}
	cstr := func(b []byte) []byte { s, _, _ := bytes.Cut(b, []byte{0}); return s }
	status = fmt.Appendf(nil, "Name:\t%s\nState:\tR (running)\nTgid:\t%d\nPid:\t%d\nPPid:\t%d\nUid:\t%d\t%d\t%d\t%d\n",
		cstr(fname), pid, pid, ppid, uid, uid, uid, uid)
	for _, a := range strings.Fields(string(cstr(psargs))) {
		cmdline = append(append(cmdline, a...), 0)
	}
	return status, cmdline
}

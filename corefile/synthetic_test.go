package corefile

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/elfcore"
	"github.com/coreunwind/coreunwind/unwind"
)

// Synthetic cores for the targets this machine cannot crash a process on
// (big-endian, 32-bit, ia64/parisc layouts). The layouts written here are
// the ones documented in /work/shared/docs/linux-cores-ia64-parisc.md, so
// the tests check the decoder against that table, not against itself.

// put writes v at off in b with the given byte order and size.
func put(b []byte, order binary.ByteOrder, off int, size int, v uint64) {
	switch size {
	case 2:
		order.PutUint16(b[off:], uint16(v))
	case 4:
		order.PutUint32(b[off:], uint32(v))
	case 8:
		order.PutUint64(b[off:], v)
	}
}

// elfImage returns a minimal ELF object image (header, a PT_LOAD covering
// the image, a PT_NOTE with a GNU build ID) of size bytes, with payload at
// offset 0x200.
func elfImage(class elf.Class, order binary.ByteOrder, machine elf.Machine, buildID []byte, payload string, size int) []byte {
	is64 := class == elf.ELFCLASS64
	ehsize, phsize := elf32HeaderSize, elf32PhdrSize
	if is64 {
		ehsize, phsize = elf64HeaderSize, elf64PhdrSize
	}
	note := elfcore.EncodeNotes([]elfcore.Note{{Name: "GNU", Type: NTGNUBuildID, Desc: buildID}}, order, 4)
	noteOff := uint64(ehsize + 2*phsize)
	var b bytes.Buffer
	ident := [16]byte{0x7f, 'E', 'L', 'F', byte(class), 1, 1}
	if order == binary.BigEndian {
		ident[5] = 2
	}
	b.Write(ident[:])
	binary.Write(&b, order, uint16(elf.ET_DYN))
	binary.Write(&b, order, uint16(machine))
	binary.Write(&b, order, uint32(1))
	word := func(v uint64) {
		if is64 {
			binary.Write(&b, order, v)
		} else {
			binary.Write(&b, order, uint32(v))
		}
	}
	word(0)
	word(uint64(ehsize))
	word(0)
	binary.Write(&b, order, uint32(0))
	binary.Write(&b, order, []uint16{uint16(ehsize), uint16(phsize), 2, 0, 0, 0})
	phdr := func(typ elf.ProgType, off, filesz uint64) {
		binary.Write(&b, order, uint32(typ))
		if is64 {
			binary.Write(&b, order, uint32(elf.PF_R|elf.PF_X))
			binary.Write(&b, order, []uint64{off, off, off, filesz, filesz, 4})
		} else {
			binary.Write(&b, order, []uint32{uint32(off), uint32(off), uint32(off), uint32(filesz), uint32(filesz), uint32(elf.PF_R | elf.PF_X), 4})
		}
	}
	phdr(elf.PT_LOAD, 0, uint64(size))
	phdr(elf.PT_NOTE, noteOff, uint64(len(note)))
	b.Write(note)
	img := make([]byte, size)
	copy(img, b.Bytes())
	copy(img[0x200:], payload)
	return img
}

func hppa32Prstatus(order binary.ByteOrder, pid, cursig int, regFill byte) []byte {
	d := make([]byte, 396)
	put(d, order, 0, 4, uint64(cursig))
	put(d, order, 12, 2, uint64(cursig))
	put(d, order, 16, 4, 0x100) // sigpend
	put(d, order, 20, 4, 0x200) // sighold
	put(d, order, 24, 4, uint64(pid))
	put(d, order, 28, 4, 1)
	for i := 72; i < 392; i++ {
		d[i] = regFill
	}
	put(d, order, 392, 4, 1) // pr_fpvalid
	return d
}

func TestSyntheticHPPA32BigEndian(t *testing.T) {
	be := binary.BigEndian
	psinfo := make([]byte, 128)
	put(psinfo, be, 8, 4, 1000) // uid (32-bit on parisc)
	put(psinfo, be, 16, 4, 4242)
	put(psinfo, be, 20, 4, 1)
	copy(psinfo[32:], "prog")
	copy(psinfo[48:], "prog -x ")
	siginfo := make([]byte, 128)
	put(siginfo, be, 0, 4, 10) // SIGBUS on parisc
	put(siginfo, be, 8, 4, 1)  // BUS_ADRALN
	put(siginfo, be, 12, 4, 0xdeadbeef)
	auxv := make([]byte, 0, 32)
	for _, v := range []uint32{AT_ENTRY, 0x10100, AT_PAGESZ, 4096, AT_NULL, 0} {
		auxv = be.AppendUint32(auxv, v)
	}
	var file []byte
	for _, v := range []uint32{1, 4096, 0x20000, 0x21000, 0} {
		file = be.AppendUint32(file, v)
	}
	file = append(file, "/lib/libfake.so\x00"...)
	fp := bytes.Repeat([]byte{0xf0}, 256)
	id := []byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4}
	img := elfImage(elf.ELFCLASS32, be, elf.EM_PARISC, id, "payload-from-file", 0x1000)
	sc := &elfcore.File{
		Class: elf.ELFCLASS32, Order: be, Machine: elf.EM_PARISC, OSABI: elf.ELFOSABI_LINUX,
		Notes: []elfcore.Note{
			{Name: "CORE", Type: NTPrstatus, Desc: hppa32Prstatus(be, 4242, 10, 0xaa)},
			{Name: "CORE", Type: NTPrpsinfo, Desc: psinfo},
			{Name: "CORE", Type: NTSiginfo, Desc: siginfo},
			{Name: "CORE", Type: NTAuxv, Desc: auxv},
			{Name: "CORE", Type: NTFile, Desc: file},
			{Name: "CORE", Type: NTFPRegset, Desc: fp},
			{Name: "CORE", Type: NTPrstatus, Desc: hppa32Prstatus(be, 4243, 0, 0xbb)},
			{Name: "CORE", Type: 0x99, Desc: []byte{1, 2, 3}},
		},
		Segments: []elfcore.Segment{
			{Vaddr: 0x10000, Memsz: 0x1000, Flags: elf.PF_R | elf.PF_W, Data: bytes.Repeat([]byte{0x5a}, 0x100)},
			{Vaddr: 0x20000, Memsz: 0x1000, Flags: elf.PF_R | elf.PF_X, Data: img[:0x100]},
		},
	}
	data := sc.Bytes()

	sysroot := t.TempDir()
	if err := os.MkdirAll(filepath.Join(sysroot, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sysroot, "lib/libfake.so"), img, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := OpenBytes(data, Options{Sysroot: sysroot})
	if err != nil {
		t.Fatal(err)
	}
	if c.Arch != "hppa" || c.PtrSize() != 4 || c.ByteOrder() != binary.BigEndian || c.Format != "elf-linux" {
		t.Errorf("arch %s ptr %d order %v format %s", c.Arch, c.PtrSize(), c.ByteOrder(), c.Format)
	}
	if c.PID != 4242 || c.PPID != 1 || c.UID != 1000 || c.Comm != "prog" || c.CommandLine != "prog -x" {
		t.Errorf("process %d %d %d %q %q", c.PID, c.PPID, c.UID, c.Comm, c.CommandLine)
	}
	if len(c.Threads) != 2 || c.Threads[0].TID != 4242 || c.Threads[1].TID != 4243 {
		t.Fatalf("threads %+v", c.Threads)
	}
	t0, t1 := c.Threads[0], c.Threads[1]
	if len(t0.GRegs) != 320 || t0.GRegs[0] != 0xaa || t0.GRegs[319] != 0xaa || len(t1.GRegs) != 320 || t1.GRegs[0] != 0xbb {
		t.Errorf("gregs %d %d bytes", len(t0.GRegs), len(t1.GRegs))
	}
	if t0.PendingSig != 0x100 || t0.HeldSig != 0x200 || !bytes.Equal(t0.FPRegs, fp) || t1.FPRegs != nil {
		t.Errorf("thread 0 sigs %#x %#x fp %d; thread 1 fp %d", t0.PendingSig, t0.HeldSig, len(t0.FPRegs), len(t1.FPRegs))
	}
	if !bytes.Equal(t1.Notes[0x99], []byte{1, 2, 3}) {
		t.Errorf("other note of thread 1: %v", t1.Notes)
	}
	if s := c.Signal; s.Name() != "SIGBUS" || s.CodeName() != "BUS_ADRALN" || !s.HasAddr || s.Addr != 0xdeadbeef || c.CrashedTID != 4242 {
		t.Errorf("signal %v crashed %d", s, c.CrashedTID)
	}
	if v, _ := c.AuxVal(AT_ENTRY); v != 0x10100 || len(c.Auxv) != 2 {
		t.Errorf("auxv %v", c.Auxv)
	}
	if len(c.Modules) != 1 {
		t.Fatalf("modules %v, warnings %q", moduleNames(c), c.Warnings)
	}
	m := c.Modules[0]
	if m.Path != "/lib/libfake.so" || m.BuildID != "deadbeef01020304" || m.FileBuildID != m.BuildID || !m.Found || m.Base != 0x20000 {
		t.Errorf("module %+v", m)
	}
	got := make([]byte, len("payload-from-file"))
	if err := c.ReadMem(0x20200, got); err != nil || string(got) != "payload-from-file" {
		t.Errorf("overlay read %q, %v", got, err)
	}
	// Bytes past p_filesz are unknown, not zero.
	if err := c.ReadMem(0x100f8, make([]byte, 16)); !errors.Is(err, unwind.ErrUnavailable) {
		t.Errorf("read across p_filesz: %v", err)
	}
	if err := c.ReadMem(0x100f8, got[:8]); err != nil || !bytes.Equal(got[:8], bytes.Repeat([]byte{0x5a}, 8)) {
		t.Errorf("read before p_filesz: %x %v", got[:8], err)
	}
	// The file is used only where the core lacks bytes: the header page
	// came from the core (identical here), and a read across the end of
	// the dumped part continues from the file.
	hdr := make([]byte, 0x120)
	if err := c.ReadMem(0x20000, hdr); err != nil || !bytes.Equal(hdr, img[:0x120]) {
		t.Errorf("read across core/file boundary: %v", err)
	}
	if !c.IsCode(0x20010) || c.IsCode(0x10010) || c.IsCode(0x5) {
		t.Errorf("IsCode wrong")
	}
	c.Close()

	// The same core against a library with another build ID.
	other := elfImage(elf.ELFCLASS32, be, elf.EM_PARISC, []byte{9, 9, 9, 9}, "payload-from-file", 0x1000)
	if err := os.WriteFile(filepath.Join(sysroot, "lib/libfake.so"), other, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err = OpenBytes(data, Options{Sysroot: sysroot})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !hasWarning(c, "deadbeef01020304", "09090909", filepath.Join(sysroot, "lib/libfake.so")) || c.Modules[0].Found {
		t.Errorf("mismatch not refused: %q", c.Warnings)
	}
	if err := c.ReadMem(0x20200, got); !errors.Is(err, unwind.ErrUnavailable) || !strings.Contains(err.Error(), "refused") {
		t.Errorf("read from refused file: %v", err)
	}
}

// TestSyntheticLayouts checks the per-class note layouts: ELF64 big-endian
// (hppa64), ia64's large pr_reg, 8-byte aligned notes and the i386
// prpsinfo with 16-bit uids.
func TestSyntheticLayouts(t *testing.T) {
	be, le := binary.BigEndian, binary.LittleEndian
	prstatus64 := func(order binary.ByteOrder, size, pid int) []byte {
		d := make([]byte, size)
		put(d, order, 12, 2, 11)
		put(d, order, 16, 8, 0x1234)
		put(d, order, 24, 8, 0x5678)
		put(d, order, 32, 4, uint64(pid))
		put(d, order, 36, 4, 77)
		for i := 112; i < size-8; i++ {
			d[i] = 0xcc
		}
		return d
	}
	psinfo64 := func(order binary.ByteOrder) []byte {
		d := make([]byte, 136)
		put(d, order, 16, 4, 500)
		put(d, order, 24, 4, 99)
		copy(d[40:], "prog64")
		copy(d[56:], "prog64 a b ")
		return d
	}
	for _, tc := range []struct {
		name      string
		class     elf.Class
		order     binary.ByteOrder
		machine   elf.Machine
		align     int
		prstatus  []byte
		psinfo    []byte
		arch      string
		regs, pid int
		comm      string
		uid       int
	}{
		{"hppa64", elf.ELFCLASS64, be, elf.EM_PARISC, 4, prstatus64(be, 760, 99), psinfo64(be), "hppa64", 640, 99, "prog64", 500},
		{"ia64", elf.ELFCLASS64, le, elf.EM_IA_64, 4, prstatus64(le, 1144, 99), psinfo64(le), "ia64", 1024, 99, "prog64", 500},
		{"ia64-align8", elf.ELFCLASS64, le, elf.EM_IA_64, 8, prstatus64(le, 1144, 99), psinfo64(le), "ia64", 1024, 99, "prog64", 500},
		{"i386", elf.ELFCLASS32, le, elf.EM_386, 4, func() []byte {
			d := make([]byte, 144)
			put(d, le, 12, 2, 11)
			put(d, le, 24, 4, 31)
			return d
		}(), func() []byte {
			d := make([]byte, 124)
			put(d, le, 8, 2, 1001) // 16-bit uid
			put(d, le, 12, 4, 31)
			copy(d[28:], "p32")
			return d
		}(), "i386", 68, 31, "p32", 1001},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := &elfcore.File{Class: tc.class, Order: tc.order, Machine: tc.machine, NoteAlign: tc.align,
				Notes: []elfcore.Note{{Name: "CORE", Type: NTPrstatus, Desc: tc.prstatus}, {Name: "CORE", Type: NTPrpsinfo, Desc: tc.psinfo}}}
			c, err := OpenBytes(sc.Bytes(), Options{Sysroot: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.Arch != tc.arch || len(c.Threads) != 1 || len(c.Threads[0].GRegs) != tc.regs || c.Threads[0].TID != tc.pid {
				t.Fatalf("arch %s threads %d regs %d", c.Arch, len(c.Threads), len(c.Threads[0].GRegs))
			}
			if c.PID != tc.pid || c.Comm != tc.comm || c.UID != tc.uid {
				t.Errorf("pid %d comm %q uid %d", c.PID, c.Comm, c.UID)
			}
			// No NT_SIGINFO: the signal comes from pr_cursig, code unknown.
			if s := c.Signal; s == nil || s.Number != 11 || s.Detailed || s.CodeName() != "" || c.CrashedTID != tc.pid {
				t.Errorf("signal %+v", s)
			}
			if tc.class == elf.ELFCLASS64 && (c.Threads[0].PendingSig != 0x1234 || c.Threads[0].HeldSig != 0x5678 || c.PPID != 0) {
				t.Errorf("sigpend %#x sighold %#x", c.Threads[0].PendingSig, c.Threads[0].HeldSig)
			}
		})
	}
}

// An HP-UX core without a process record has no thread to report: it is
// refused with an error that says so.
func TestRefusesHPUXCoreWithoutProcRecord(t *testing.T) {
	sc := &elfcore.File{Class: elf.ELFCLASS64, Order: binary.BigEndian, Machine: elf.EM_PARISC, OSABI: elf.ELFOSABI_HPUX}
	if _, err := OpenBytes(sc.Bytes(), Options{}); err == nil || !strings.Contains(err.Error(), "PT_HP_CORE_PROC") {
		t.Errorf("HP-UX core without PT_HP_CORE_PROC: %v", err)
	}
}

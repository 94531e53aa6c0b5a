package unwindtest

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/unwind"
)

// InsnCase is one instruction for CheckDecodeInsn: its source for gas,
// and what decoding it with the suite's registers must give. A case
// whose Asm starts with "." is an assembler directive between them
// (".option norvc"), not an instruction.
type InsnCase struct {
	Asm     string
	Mem     unwind.MemAccess
	MemAddr uint64 // when Mem != MemNone
	Class   unwind.InsnClass
	// Divisor is the register holding a division's divisor, checked
	// when Class is InsnDivide (-1 when it is in memory); any other
	// instruction must have none.
	Divisor int
	Regs    []int
}

// InsnSuite is a set of cases for one arch, checked against binutils.
type InsnSuite struct {
	Arch unwind.Arch
	// Prefix is the binutils prefix ("s390x-linux-gnu-"): its as
	// assembles the cases, its objdump is the reference.
	Prefix string
	// Header starts the assembly source (".thumb", ".option norvc").
	Header  string
	ASFlags []string
	// Regs are the registers the decoder sees, by number.
	Regs map[int]uint64
	// Norm makes objdump's and the decoder's texts comparable.
	Norm  func(string) string
	Cases []InsnCase
	// NeedTool returns the path of a tool the test needs (testenv's).
	NeedTool func(t testing.TB, name string) string
}

// objdumpLine is one line of objdump -d: offset, the bytes (or
// halfwords, words), the instruction (empty on a continuation line).
var objdumpLine = regexp.MustCompile(`(?m)^\s*([0-9a-f]+):\t((?:[0-9a-f]{2,8} ?)+)\s*(?:\t(.*))?$`)

// CheckDecodeInsn assembles the cases with gas, one after the other, and
// checks each decoded instruction against objdump -d of the same object:
// the text (through Norm) and the length; and against the case: the
// memory access and its address, the class and the registers. The
// instructions are decoded at objdump's offsets, as an arch whose
// instructions vary in length must be.
func CheckDecodeInsn(t *testing.T, s InsnSuite) {
	t.Helper()
	as, objdump := s.NeedTool(t, s.Prefix+"as"), s.NeedTool(t, s.Prefix+"objdump")
	dir := t.TempDir()
	src, obj := filepath.Join(dir, "insns.s"), filepath.Join(dir, "insns.o")
	var b strings.Builder
	b.WriteString(s.Header + "\n.text\n")
	for _, c := range s.Cases {
		b.WriteString(c.Asm + "\n")
	}
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(as, append(s.ASFlags, "-o", obj, src)...).CombinedOutput(); err != nil {
		t.Fatalf("as: %v\n%s", err, out)
	}
	out, err := exec.Command(objdump, "-d", obj).Output()
	if err != nil {
		t.Fatalf("objdump: %v", err)
	}
	type line struct {
		off  uint64
		n    int
		text string
	}
	var lines []line
	for _, m := range objdumpLine.FindAllStringSubmatch(string(out), -1) {
		off, _ := strconv.ParseUint(m[1], 16, 64)
		n := len(strings.ReplaceAll(m[2], " ", "")) / 2
		if len(lines) > 0 && m[3] == "" {
			// objdump continues a long instruction's bytes on the
			// next line (s390x's 6-byte ones fit; x86's would not).
			lines[len(lines)-1].n += n
			continue
		}
		lines = append(lines, line{off, n, s.Norm(m[3])})
	}
	var cases []InsnCase
	for _, c := range s.Cases {
		if !strings.HasPrefix(c.Asm, ".") {
			cases = append(cases, c)
		}
	}
	if len(lines) != len(cases) {
		t.Fatalf("objdump shows %d instructions, want %d:\n%s", len(lines), len(cases), out)
	}
	f, err := elf.Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text, err := f.Section(".text").Data()
	if err != nil {
		t.Fatal(err)
	}
	d := s.Arch.(unwind.InsnDecoder)
	reg := func(r int) (uint64, bool) { v, ok := s.Regs[r]; return v, ok }
	for i, c := range cases {
		l := lines[i]
		end := min(uint64(len(text)), l.off+uint64(d.MaxInsnLen()))
		in, err := d.DecodeInsn(text[l.off:end], l.off, reg)
		if err != nil {
			t.Errorf("%s: %v", c.Asm, err)
			continue
		}
		if s.Norm(in.Text) != l.text || in.Len != l.n {
			t.Errorf("%s: %q (%d bytes); objdump says %q (%d bytes)", c.Asm, in.Text, in.Len, l.text, l.n)
		}
		if in.Mem != c.Mem || (c.Mem != unwind.MemNone && (!in.HasMemAddr || in.MemAddr != c.MemAddr)) {
			t.Errorf("%s: memory %v at %#x (known %v), want %v at %#x", c.Asm, in.Mem, in.MemAddr, in.HasMemAddr, c.Mem, c.MemAddr)
		}
		wantDivisor := -1
		if c.Class == unwind.InsnDivide {
			wantDivisor = c.Divisor
		}
		if in.Class != c.Class || in.Divisor != wantDivisor {
			t.Errorf("%s: class %v divisor %d, want %v %d", c.Asm, in.Class, in.Divisor, c.Class, wantDivisor)
		}
		if regNames(s.Arch, in.Regs) != regNames(s.Arch, c.Regs) {
			t.Errorf("%s: registers %s, want %s", c.Asm, regNames(s.Arch, in.Regs), regNames(s.Arch, c.Regs))
		}
	}
}

func regNames(a unwind.Arch, rs []int) string {
	var out []string
	for _, r := range rs {
		out = append(out, a.RegName(r))
	}
	return strings.Join(out, ",")
}

// NormInsn is the usual Norm: no comments ("# x", "// x", "@ x") or
// " <sym>" notes, lower case, one space after the mnemonic and none
// after commas.
func NormInsn(s string) string {
	for _, c := range []string{"# ", "//", " <", "@ ", "\t@"} {
		if i := strings.Index(s, c); i >= 0 {
			s = s[:i]
		}
	}
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	return strings.ReplaceAll(s, ", ", ",")
}

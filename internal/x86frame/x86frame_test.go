package x86frame_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/fuzzspace"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/internal/x86frame"
)

// Calls in their 32- and 64-bit encodings (relative, through registers,
// memory with and without SIB, displacements of 0, 1 and 4 bytes,
// absolute and rip-relative, segment and REX prefixes) and instructions
// that are not calls. Each is assembled after 8 nops, so that the bytes
// AfterCall looks at are its own: the check cannot know instruction
// boundaries, and an unlucky neighbour (ff 90 after a call) reads as a
// call through a 32-bit displacement.
var (
	insns32 = []string{
		"call f", "call *%eax", "call *(%eax)", "call *4(%ebx)", "call *0x1000(%ebx)",
		"call *(%esp)", "call *4(%esp)", "call *0x12345678", "call *0x10(,%eax,4)",
		"call *%gs:0x10", "call *0x100(%esi,%edi,2)",
		"mov %eax, %ebx", "add $1, %eax", "ret", "movl $0xff, %eax", "leal 0x10(%eax), %eax", "push %ebp",
	}
	insns64 = []string{
		"call f", "call *%rax", "call *%r11", "call *(%r12)", "call *8(%rsp)", "call *f(%rip)",
		"call *0x1000(%rbx,%rcx,8)", "call *%fs:0x10",
		"mov %rax, %rbx", "add $1, %rax", "movq $0xff, %rax", "lea 0x10(%rax), %rax", "push %rbp",
	}
)

var objdumpInsnRE = regexp.MustCompile(`^\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t(\S+)`)

// TestAfterCall: AfterCall is true at the end of every call instruction
// the assembler encoded and false after the other instructions (objdump
// says where each instruction ends and which are calls).
func TestAfterCall(t *testing.T) {
	as := testenv.NeedTool(t, "as")
	objdump := testenv.NeedTool(t, "objdump")
	for _, tc := range []struct {
		name, flag string
		insns      []string
	}{{"i386", "--32", insns32}, {"x86_64", "--64", insns64}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src, obj := filepath.Join(dir, "calls.s"), filepath.Join(dir, "calls.o")
			asm := "\t.text\nf:\n"
			for _, in := range tc.insns {
				asm += "\t.fill 8,1,0x90\n\t" + in + "\n"
			}
			if err := os.WriteFile(src, []byte(asm+"\tnop\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(as, tc.flag, "-o", obj, src).CombinedOutput(); err != nil {
				t.Fatalf("as: %v\n%s", err, out)
			}
			dump, err := exec.Command(objdump, "-d", obj).Output()
			if err != nil {
				t.Fatal(err)
			}
			// objdump wraps long encodings onto a second line: an
			// instruction ends where the next one starts.
			type insn struct {
				addr uint64
				text string
			}
			var list []insn
			sc := bufio.NewScanner(strings.NewReader(string(dump)))
			for sc.Scan() {
				if m := objdumpInsnRE.FindStringSubmatch(sc.Text()); m != nil {
					addr, _ := strconv.ParseUint(m[1], 16, 64)
					list = append(list, insn{addr, strings.TrimSpace(sc.Text())})
				}
			}
			space := &fuzzspace.Space{Program: fuzzspace.Open(t, obj)}
			checked := 0
			for i := 0; i+1 < len(list); i++ {
				m := objdumpInsnRE.FindStringSubmatch(list[i].text)
				if m[3] == "nop" {
					continue
				}
				checked++
				end := list[i+1].addr
				if got, isCall := x86frame.AfterCall(space, end), strings.HasPrefix(m[3], "call"); got != isCall {
					t.Errorf("after %q (ends at %#x): AfterCall %v", list[i].text, end, got)
				}
			}
			if checked != len(tc.insns) {
				t.Fatalf("objdump listed %d instructions, the source has %d:\n%s", checked, len(tc.insns), dump)
			}
		})
	}
}

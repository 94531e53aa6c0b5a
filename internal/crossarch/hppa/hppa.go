// Package hppa is test tooling for PA-RISC: building C programs with the
// hppa and hppa64 cross compilers, reading binutils' view of their unwind
// tables (readelf -u) as the independent oracle, and running 32-bit
// programs under qemu-hppa with gdb-multiarch attached (gdb.go). Tests
// only; nothing in the product imports it.
package hppa

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// Toolchain names one PA-RISC target's tools.
type Toolchain struct {
	Arch    string // "hppa" or "hppa64"
	GCC     string
	Readelf string
	Objdump string
}

// PA32 and PA64 are Debian's cross toolchains.
var (
	PA32 = Toolchain{Arch: "hppa", GCC: "hppa-linux-gnu-gcc-12", Readelf: "hppa-linux-gnu-readelf", Objdump: "hppa-linux-gnu-objdump"}
	PA64 = Toolchain{Arch: "hppa64", GCC: "hppa64-linux-gnu-gcc-12", Readelf: "hppa64-linux-gnu-readelf", Objdump: "hppa64-linux-gnu-objdump"}
)

// Freestanding are the flags a PA64 program needs to link without a libc
// (there is no 64-bit PA-RISC Linux userland): entry _start, and no HP-UX
// loader as interpreter.
var Freestanding = []string{"-ffreestanding", "-nostdlib", "-static", "-Wl,-e,_start", "-Wl,--no-dynamic-linker"}

// Build compiles src (a path) into dir/out with the toolchain's gcc.
func (tc Toolchain) Build(t testing.TB, dir, out, src string, flags ...string) string {
	t.Helper()
	p := filepath.Join(dir, out)
	testenv.Build(t, tc.GCC, append([]string{"-o", p, src}, flags...)...)
	return p
}

// Need makes sure the toolchain's binutils are installed.
func (tc Toolchain) Need(t testing.TB) {
	t.Helper()
	testenv.NeedTool(t, tc.GCC)
	testenv.NeedTool(t, tc.Readelf)
}

// ReadelfEntry is one entry as readelf -u prints it.
type ReadelfEntry struct {
	Name       string // "<name>" without brackets; may be "sym+off" or ""
	Start, End uint64
	Flags      []string
}

var entryLine = regexp.MustCompile(`^<([^>]*)>: \[0x([0-9a-f]+)-0x([0-9a-f]+)\]`)

// ReadelfUnwind runs readelf -u on file and parses its entries.
func (tc Toolchain) ReadelfUnwind(t testing.TB, file string) []ReadelfEntry {
	t.Helper()
	out, err := exec.Command(testenv.NeedTool(t, tc.Readelf), "-u", file).Output()
	if err != nil {
		t.Fatalf("%s -u %s: %v", tc.Readelf, file, err)
	}
	return ParseReadelfUnwind(string(out))
}

// ParseReadelfUnwind parses readelf -u output for PA-RISC.
func ParseReadelfUnwind(out string) []ReadelfEntry {
	var es []ReadelfEntry
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := entryLine.FindStringSubmatch(line); m != nil {
			s, _ := strconv.ParseUint(m[2], 16, 64)
			e, _ := strconv.ParseUint(m[3], 16, 64)
			es = append(es, ReadelfEntry{Name: m[1], Start: s, End: e, Flags: []string{}})
			continue
		}
		if strings.HasPrefix(line, "\t") && len(es) > 0 {
			es[len(es)-1].Flags = append(es[len(es)-1].Flags, strings.Fields(line)...)
		}
	}
	return es
}

package cfi

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// buildProgram compiles src with compiler (gcc or g++) and flags into a
// temporary executable.
func buildProgram(t testing.TB, compiler, ext, src string, flags ...string) string {
	t.Helper()
	cc := testenv.NeedTool(t, compiler)
	dir := t.TempDir()
	in := filepath.Join(dir, "prog"+ext)
	out := filepath.Join(dir, "prog")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, flags...), "-o", out, in)
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", compiler, args, err, b)
	}
	return out
}

// elfSections returns the named sections' data and addresses (nil when
// absent or SHT_NOBITS).
type sectionData struct {
	data []byte
	addr uint64
}

func readSections(t testing.TB, path string) (map[string]sectionData, binary.ByteOrder, int) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]sectionData{}
	for _, name := range []string{".eh_frame", ".eh_frame_hdr", ".debug_frame"} {
		s := f.Section(name)
		if s == nil || s.Type == elf.SHT_NOBITS {
			continue
		}
		b, err := s.Data()
		if err != nil {
			t.Fatalf("%s %s: %v", path, name, err)
		}
		m[name] = sectionData{b, s.Addr}
	}
	ptr := 8
	if f.Class == elf.ELFCLASS32 {
		ptr = 4
	}
	return m, f.ByteOrder, ptr
}

// x86RegNames are readelf's names for x86_64 DWARF registers 0..66.
var x86RegNames = func() []string {
	n := []string{"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp"}
	for i := 8; i <= 15; i++ {
		n = append(n, "r"+strconv.Itoa(i))
	}
	n = append(n, "rip")
	for i := 0; i <= 15; i++ {
		n = append(n, "xmm"+strconv.Itoa(i))
	}
	for i := 0; i <= 7; i++ {
		n = append(n, "st"+strconv.Itoa(i))
	}
	for i := 0; i <= 7; i++ {
		n = append(n, "mm"+strconv.Itoa(i))
	}
	n = append(n, "rflags", "es", "cs", "ss", "ds", "fs", "gs", "", "", "fs.base", "gs.base", "", "", "tr", "ldtr", "mxcsr", "fcw", "fsw")
	return n
}()

func x86RegName(r uint64) string {
	if r < uint64(len(x86RegNames)) {
		return x86RegNames[r]
	}
	return ""
}

func x86RegNum(name string) (uint64, bool) {
	for i, n := range x86RegNames {
		if n == name && n != "" {
			return uint64(i), true
		}
	}
	if strings.HasPrefix(name, "r") {
		if v, err := strconv.ParseUint(name[1:], 10, 64); err == nil {
			return v, true
		}
	}
	return 0, false
}

// Parsed `readelf --debug-dump=frames-interp` output.
type relCIE struct {
	off      uint64
	aug      string
	cf       uint64
	df       int64
	ra       uint64
	colNames []string
	rows     []relRow
}

type relFDE struct {
	off, cie   uint64
	begin, end uint64
	colNames   []string // register columns after LOC and CFA
	rows       []relRow
}

type relRow struct {
	loc   uint64
	cfa   string
	cells []string
}

type relSection struct {
	cies map[uint64]*relCIE
	fdes []*relFDE
}

var (
	reCIE = regexp.MustCompile(`^([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]+) CIE "(.*)" cf=(\d+) df=(-?\d+) ra=(\d+)$`)
	reFDE = regexp.MustCompile(`^([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]+) FDE cie=([0-9a-f]+) pc=([0-9a-f]+)\.\.([0-9a-f]+)$`)
	reRow = regexp.MustCompile(`^([0-9a-f]{8,16}) (.*)$`)
)

// runReadelf returns the parsed frames-interp dump of the named section.
func runReadelf(t testing.TB, path, section string) *relSection {
	t.Helper()
	readelf := testenv.NeedTool(t, "readelf")
	out, err := exec.Command(readelf, "--debug-dump=frames-interp", path).Output()
	if err != nil && !bytes.Contains(out, []byte("Contents of the "+section)) {
		t.Fatalf("readelf %s: %v", path, err)
	}
	res := &relSection{cies: map[uint64]*relCIE{}}
	in := false
	var cols *[]string
	var rows *[]relRow
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	hex := func(s string) uint64 {
		v, err := strconv.ParseUint(s, 16, 64)
		if err != nil {
			t.Fatalf("readelf: bad hex %q", s)
		}
		return v
	}
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " ")
		if strings.HasPrefix(line, "Contents of the ") {
			in = strings.HasPrefix(line, "Contents of the "+section+" section")
			continue
		}
		if !in {
			continue
		}
		if m := reCIE.FindStringSubmatch(line); m != nil {
			df, _ := strconv.ParseInt(m[6], 10, 64)
			cf, _ := strconv.ParseUint(m[5], 10, 64)
			ra, _ := strconv.ParseUint(m[7], 10, 64)
			c := &relCIE{off: hex(m[1]), aug: m[4], cf: cf, df: df, ra: ra}
			res.cies[c.off] = c
			cols, rows = &c.colNames, &c.rows
			continue
		}
		if m := reFDE.FindStringSubmatch(line); m != nil {
			f := &relFDE{off: hex(m[1]), cie: hex(m[4]), begin: hex(m[5]), end: hex(m[6])}
			res.fdes = append(res.fdes, f)
			cols, rows = &f.colNames, &f.rows
			continue
		}
		fields := strings.Fields(line)
		if len(fields) >= 2 && fields[0] == "LOC" && fields[1] == "CFA" && cols != nil {
			*cols = fields[2:]
			continue
		}
		if m := reRow.FindStringSubmatch(line); m != nil && rows != nil && !strings.Contains(line, "ZERO terminator") {
			var f []string
			for _, tok := range strings.Fields(m[2]) {
				// DW_CFA_register cells print as "r1 (rdx)": number and name.
				if strings.HasPrefix(tok, "(") && len(f) > 0 {
					f[len(f)-1] += " " + tok
					continue
				}
				f = append(f, tok)
			}
			if len(f) == 0 {
				continue
			}
			*rows = append(*rows, relRow{loc: hex(m[1]), cfa: f[0], cells: f[1:]})
		}
	}
	return res
}

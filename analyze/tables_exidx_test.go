package analyze

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/report"
)

// TestTablesEXIDXMatchesReadelf: `coreunwind tables` on ARM objects the
// cross compilers build (C and C++, -O0 and -O2, ARM and Thumb, with and
// without frame pointers, relocatable and linked), on an assembler file
// using every opcode class, and on the cross libc, agrees with
// arm-linux-gnueabihf-readelf -u entry for entry: start address, the
// index word or extab address, the personality, and every opcode's bytes
// and text.
func TestTablesEXIDXMatchesReadelf(t *testing.T) {
	t.Parallel()
	readelf := testenv.NeedTool(t, "arm-linux-gnueabihf-readelf")
	arm := testenv.ARMHF
	dir := t.TempDir()
	src := func(name string) string { p, _ := filepath.Abs(filepath.Join("testdata", "exidx", name)); return p }
	var files []string
	build := func(out, compiler string, args ...string) {
		p := filepath.Join(dir, out)
		testenv.Build(t, compiler, append(args, "-o", p)...)
		files = append(files, p)
	}
	for _, mode := range []string{"-marm", "-mthumb"} {
		for _, opt := range [][]string{{"-O0"}, {"-O2", "-fomit-frame-pointer"}, {"-O2", "-fno-omit-frame-pointer"}} {
			name := strings.Join(append([]string{mode}, opt...), "")
			args := append([]string{mode, "-funwind-tables"}, opt...)
			build("c"+name+".o", arm.CC(), append(args, "-c", src("prog.c"))...)
			build("cc"+name+".o", arm.Triple+"-g++", append(args, "-c", src("prog.cc"))...)
		}
		build("c"+mode, arm.CC(), mode, "-O2", "-g", src("prog.c"))
		build("cc"+mode, arm.Triple+"-g++", mode, "-O2", src("prog.cc"))
	}
	build("c-static", arm.CC(), "-O2", "-static", src("prog.c"))
	ops, _ := filepath.Abs("../arm/exidx/testdata/ops.s")
	build("ops.o", arm.Triple+"-as", ops)
	files = append(files, arm.Sysroot()+"/lib/libc.so.6")
	total := 0
	for _, f := range files {
		// readelf exits 1 after printing opcodes it calls unsupported
		// (ops.s has them on purpose): its output is what counts.
		out, err := exec.Command(readelf, "-u", f).Output()
		if len(out) == 0 {
			t.Fatalf("readelf -u %s: %v", f, err)
		}
		want := parseReadelfEXIDX(string(out))
		tab, err := Tables(f, "")
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(tab.Warnings) > 0 {
			t.Errorf("%s: warnings %q", f, tab.Warnings)
		}
		got := exidxLikeReadelf(tab)
		if len(got) != len(want) {
			t.Errorf("%s: %d entries, readelf -u %d", f, len(got), len(want))
		}
		for i := 0; i < len(got) && i < len(want); i++ {
			// readelf decodes a generic personality's opcodes only when
			// it can name the routine one of GCC's (in a linked
			// program it is a PLT stub): then only the header compares.
			if p := strings.Index(want[i], "Personality routine"); p >= 0 && !strings.Contains(want[i][p:], " | ") {
				got[i], _, _ = strings.Cut(got[i], " | 0x")
			}
			if got[i] != want[i] {
				t.Errorf("%s entry %d:\n got %s\nwant %s", filepath.Base(f), i, got[i], want[i])
				break
			}
		}
		total += len(want)
	}
	if total < 900 {
		t.Errorf("only %d entries compared: the inputs have no tables?", total)
	}
	t.Logf("%d entries in %d files agree with readelf -u", total, len(files))
}

// readelfEntry matches an entry's first line: "0x1e32c <name>: rest".
var readelfEntry = regexp.MustCompile(`^0x([0-9a-f]+)(?: <[^>]*>)?: (.*)$`)

// parseReadelfEXIDX turns readelf -u's entries into one line each:
// address, the rest of the first line, then the body lines with their
// whitespace collapsed, joined by " | ". A generic personality's line
// keeps only its address (readelf adds the routine's name).
func parseReadelfEXIDX(out string) []string {
	var entries []string
	cur := -1
	for _, line := range strings.Split(out, "\n") {
		if m := readelfEntry.FindStringSubmatch(line); m != nil {
			entries = append(entries, "0x"+m[1]+": "+m[2])
			cur = len(entries) - 1
			continue
		}
		line = strings.Join(strings.Fields(line), " ")
		if line == "" || strings.HasPrefix(line, "Unwind section") {
			cur = -1
			continue
		}
		if cur >= 0 {
			if strings.HasPrefix(line, "Personality routine: ") {
				line = strings.Fields(line)[0] + " " + strings.Fields(line)[1] + " " + strings.Fields(line)[2]
			}
			entries[cur] += " | " + line
		}
	}
	return entries
}

// exidxLikeReadelf formats coreunwind's entries as parseReadelfEXIDX does.
func exidxLikeReadelf(t *report.Tables) []string {
	var out []string
	for _, e := range t.Entries {
		s := fmt.Sprintf("%#x: ", uint64(e.Start))
		switch {
		case e.CantUnwind:
			s += "0x1 [cantunwind]"
		case e.Extab != nil:
			s += fmt.Sprintf("@%#x", uint64(*e.Extab))
		case e.ExidxWord != nil:
			s += fmt.Sprintf("%#x", uint64(*e.ExidxWord))
		}
		switch {
		case e.PersonalityIndex != nil:
			s += fmt.Sprintf(" | Compact model index: %d", *e.PersonalityIndex)
		case e.Personality != nil:
			s += fmt.Sprintf(" | Personality routine: %#x", uint64(*e.Personality))
		}
		for _, r := range e.Records {
			s += " | " + r
		}
		out = append(out, s)
	}
	return out
}

package elfx

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// run runs a command and fails the test with its output on error.
func run(t testing.TB, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// compile writes src to dir/name.<ext> and builds dir/name with the given
// compiler and flags.
func compile(t testing.TB, dir, compiler, name, ext, src string, flags ...string) string {
	t.Helper()
	testenv.NeedTool(t, compiler)
	srcPath := filepath.Join(dir, name+"."+ext)
	if err := os.WriteFile(srcPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	args := append(append([]string{}, flags...), "-o", out, srcPath)
	run(t, dir, compiler, args...)
	return out
}

// refFrame is one line pair of addr2line -f -i output.
type refFrame struct {
	Function string
	File     string
	Line     int
}

var discriminator = regexp.MustCompile(` \(discriminator \d+\)$`)
var legacyRustHash = regexp.MustCompile(`::h[0-9a-f]{16}$`)
var inlinedAt = regexp.MustCompile(` inlined at .* in .*$`)
var fileLineCol = regexp.MustCompile(`^(.*?):(\d+|\?)(?::\d+)?$`)

// runAddr2line runs binutils' addr2line or elfutils' eu-addr2line, which
// share these options and the output format (eu-addr2line adds columns).
func runAddr2line(t testing.TB, toolName, file string, addrs []uint64) map[uint64][]refFrame {
	t.Helper()
	tool := testenv.NeedTool(t, toolName)
	out := map[uint64][]refFrame{}
	const batch = 2000
	for len(addrs) > 0 {
		n := min(batch, len(addrs))
		args := []string{"-a", "-f", "-i", "-C", "-e", file}
		for _, a := range addrs[:n] {
			args = append(args, "0x"+strconv.FormatUint(a, 16))
		}
		addrs = addrs[n:]
		text := run(t, "", tool, args...)
		sc := bufio.NewScanner(strings.NewReader(text))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var cur uint64
		var lines []string
		flush := func() {
			var fr []refFrame
			for i := 0; i+1 < len(lines); i += 2 {
				fn, loc := inlinedAt.ReplaceAllString(lines[i], ""), discriminator.ReplaceAllString(lines[i+1], "")
				f := refFrame{Function: fn, File: loc}
				if m := fileLineCol.FindStringSubmatch(loc); m != nil {
					f.File = m[1]
					f.Line, _ = strconv.Atoi(m[2])
				}
				fr = append(fr, f)
			}
			if lines != nil {
				out[cur] = fr
			}
			lines = nil
		}
		for sc.Scan() {
			l := sc.Text()
			if strings.HasPrefix(l, "0x") {
				flush()
				v, err := strconv.ParseUint(l[2:], 16, 64)
				if err != nil {
					t.Fatalf("addr2line: bad address line %q", l)
				}
				cur, lines = v, []string{}
				continue
			}
			lines = append(lines, l)
		}
		flush()
	}
	return out
}

var insnLine = regexp.MustCompile(`^\s+([0-9a-f]+):\t`)
var funcLine = regexp.MustCompile(`^([0-9a-f]+) <(.*)>:$`)

// instructionAddrs lists every instruction boundary objdump -d finds in
// the functions accepted by keep (all functions when keep is nil).
func instructionAddrs(t testing.TB, file string, keep func(fn string) bool) []uint64 {
	t.Helper()
	tool := testenv.NeedTool(t, "objdump")
	text := run(t, "", tool, "-d", "--no-show-raw-insn", file)
	var addrs []uint64
	take := true
	for _, l := range strings.Split(text, "\n") {
		if m := funcLine.FindStringSubmatch(l); m != nil {
			take = keep == nil || keep(m[2])
			continue
		}
		if m := insnLine.FindStringSubmatch(l); m != nil && take {
			v, _ := strconv.ParseUint(m[1], 16, 64)
			addrs = append(addrs, v)
		}
	}
	return addrs
}

// compareWithAddr2line checks SourceFrames against addr2line at every
// address and returns how many addresses had an inline chain.
func compareWithAddr2line(t *testing.T, o *Object, refFile string, addrs []uint64) (inlined int) {
	t.Helper()
	return compareWithTool(t, "addr2line", o, refFile, addrs)
}

// compareWithTool is compareWithAddr2line with a choice of tool.
func compareWithTool(t *testing.T, tool string, o *Object, refFile string, addrs []uint64) (inlined int) {
	t.Helper()
	ref := runAddr2line(t, tool, refFile, addrs)
	var mismatched []uint64
	got := map[uint64][]SourceFrame{}
	for _, a := range addrs {
		want := ref[a]
		fr, err := o.SourceFrames(a)
		if err != nil {
			t.Fatalf("SourceFrames(%#x): %v", a, err)
		}
		got[a] = fr
		if !matches(fr, want) {
			mismatched = append(mismatched, a)
			continue
		}
		if len(fr) > 1 {
			inlined++
		}
	}
	if len(mismatched) == 0 {
		return inlined
	}
	// binutils 2.40 picks the wrong DWARF 5 file entry in some units
	// (libc's s_ldexpf128.c vs s_ldexp_template.c); elfutils reads them
	// right. An address matching either independent tool passes.
	other := "eu-addr2line"
	if tool == other {
		other = "addr2line"
	}
	ref2 := runAddr2line(t, other, refFile, mismatched)
	bad := 0
	for _, a := range mismatched {
		if matches(got[a], ref2[a]) {
			if len(got[a]) > 1 {
				inlined++
			}
			continue
		}
		bad++
		if bad <= 10 {
			t.Errorf("%#x:\n got  %+v\n %s %+v\n %s %+v", a, got[a], tool, ref[a], other, ref2[a])
		}
	}
	t.Logf("%d of %d addresses differ from %s; %d of those match %s", len(mismatched), len(addrs), tool, len(mismatched)-bad, other)
	if bad > 0 {
		t.Errorf("%d of %d addresses match neither %s nor %s", bad, len(addrs), tool, other)
	}
	return inlined
}

// matches compares SourceFrames with one tool's answer.
func matches(got []SourceFrame, want []refFrame) bool {
	if len(want) == 1 && want[0].Line == 0 {
		// The tool found no line: alignment padding between functions
		// or code without DWARF. It may still print a symbol, or only
		// the unit's name; elfx must not invent a line.
		return len(got) == 0 || (len(got) == 1 && got[0].Line == 0)
	}
	return sameFrames(got, want)
}

func sameFrames(got []SourceFrame, want []refFrame) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		// eu-addr2line names only addresses inside a sized symbol ("??"
		// for padding); binutils and elfx take the nearest symbol.
		// binutils keeps the ::h<hash> of legacy Rust names; gdb and elfx
		// drop it. binutils prints C++ parameter lists; elfx names frames
		// as gdb does, without them.
		wf := legacyRustHash.ReplaceAllString(w.Function, "")
		if (bareName(g.Function) != bareName(wf) && w.Function != "??") || g.Line != w.Line {
			return false
		}
		// Where only the unit is known (line 0) addr2line prints the
		// unit's DW_AT_name as written; we join it to the comp_dir.
		if w.Line == 0 && path.Base(g.File) == path.Base(w.File) {
			continue
		}
		if path.Clean(g.File) != undoubleDir(w.File) {
			return false
		}
		if g.Inlined != (i < len(got)-1) {
			return false
		}
	}
	return true
}

// readSymbols returns the named FUNC symbols of file.
func mustOpen(t testing.TB, path string) *Object {
	t.Helper()
	o, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	return o
}

// runWithStdin is run with standard input.
func runWithStdin(t testing.TB, dir, stdin, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// bareName is a function name without its parameter list, return type
// and template arguments: "void ns::C<int>::f<T const*>(int)" is
// "ns::C::f". binutils prints demangled linkage names (return type,
// "T const*"); elfx prints gdb's names (DW_AT_name qualified by its
// scopes, "const T*"). The qualified name must agree; the spelling of
// template arguments may differ.
func bareName(s string) string {
	s = stripParams(s)
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '<' && !strings.HasSuffix(s[:i], "operator"):
			depth++
		case c == '>' && depth > 0:
			depth--
		case depth == 0:
			b.WriteByte(c)
		}
	}
	out := b.String()
	if i := strings.LastIndexByte(out, ' '); i >= 0 && !strings.Contains(out[i:], "::") == false {
		out = out[i+1:]
	}
	return out
}

// undoubleDir undoes the way binutils and elfutils join a DWARF 5 file in
// directory 0 with DW_AT_comp_dir although directory 0 already is the
// compilation directory: glibc's "./csu" + "init-first.c" comes out of
// addr2line and eu-addr2line as "./csu/./csu/init-first.c"; gdb prints
// "./csu/init-first.c", which elfx follows.
func undoubleDir(p string) string {
	p = path.Clean(p)
	parts := strings.Split(p, "/")
	for n := 1; 2*n < len(parts); n++ {
		if strings.Join(parts[:n], "/") == strings.Join(parts[n:2*n], "/") {
			return strings.Join(append(parts[:n:n], parts[2*n:]...), "/")
		}
	}
	return p
}

// buildManyFunctions compiles a C++ program of n small functions in
// namespace big, each called once from main, with flags, and returns
// its path.
func buildManyFunctions(t testing.TB, n int, flags ...string) string {
	dir := t.TempDir()
	var src strings.Builder
	src.WriteString("namespace big {\n")
	for i := range n {
		fmt.Fprintf(&src, "__attribute__((noinline)) int f%d(int x) { volatile int y = x * %d; return y + %d; }\n", i, i+1, i)
	}
	src.WriteString("}\nint main(int argc, char **) {\n\tint s = 0;\n")
	for i := range n {
		fmt.Fprintf(&src, "\ts += big::f%d(argc);\n", i)
	}
	src.WriteString("\treturn s & 1;\n}\n")
	file := filepath.Join(dir, "big.cc")
	if err := os.WriteFile(file, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "big")
	testenv.Build(t, "g++", append(append([]string{"-o", exe}, flags...), file)...)
	return exe
}

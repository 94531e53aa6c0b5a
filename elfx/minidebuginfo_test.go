package elfx

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

const miniProg = `
#include <stdio.h>
static __attribute__((noinline)) int hidden_helper(int x) { return x * 3 + 1; }
static __attribute__((noinline)) int another_static(int x) { return hidden_helper(x) - 2; }
int main(int argc, char **argv) { printf("%d\n", another_static(argc)); return 0; }
`

// A stripped binary with MiniDebugInfo, made as Fedora's find-debuginfo
// makes it: the function symbols that .dynsym lacks, in an ELF of their
// own, xz-compressed into .gnu_debugdata. Its static functions get their
// names back; nm of the unstripped binary is the judge.
func TestMiniDebugInfoNamesStaticFunctions(t *testing.T) {
	dir := t.TempDir()
	prog := testenv.BuildC(t, dir, "prog", miniProg, "-O2", "-g")
	for _, tool := range []string{"nm", "objcopy", "strip", "xz"} {
		testenv.NeedTool(t, tool)
	}
	want := map[string]uint64{}
	out, err := exec.Command("nm", "--defined-only", prog).Output()
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 3 && (f[1] == "t" || f[1] == "T") {
			v, _ := strconv.ParseUint(f[0], 16, 64)
			want[f[2]] = v
			keep = append(keep, f[2])
		}
	}
	if want["hidden_helper"] == 0 || want["another_static"] == 0 {
		t.Fatalf("the static functions were not kept out of line: %v", want)
	}
	run := func(name string, args ...string) {
		t.Helper()
		if b, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, b)
		}
	}
	keepFile := filepath.Join(dir, "keep")
	os.WriteFile(keepFile, []byte(strings.Join(keep, "\n")+"\n"), 0o644)
	dbg, mini, stripped := filepath.Join(dir, "prog.dbg"), filepath.Join(dir, "mini"), filepath.Join(dir, "prog.stripped")
	run("objcopy", "--only-keep-debug", prog, dbg)
	run("objcopy", "-S", "--remove-section", ".gdb_index", "--remove-section", ".comment", "--keep-symbols="+keepFile, dbg, mini)
	run("xz", "-k", mini)
	run("strip", "--strip-all", "-o", stripped, prog)

	plain := mustOpen(t, stripped)
	defer plain.Close()
	if s, ok := plain.Symbol(want["hidden_helper"]); ok && s.Name == "hidden_helper" {
		t.Fatal("the stripped binary names hidden_helper without MiniDebugInfo: the test proves nothing")
	}
	run("objcopy", "--add-section", ".gnu_debugdata="+mini+".xz", stripped)
	o := mustOpen(t, stripped)
	defer o.Close()
	for _, name := range []string{"hidden_helper", "another_static", "main"} {
		s, ok := o.Symbol(want[name] + 1)
		if !ok || s.Name != name || s.Addr != want[name] {
			t.Errorf("%#x: %+v %v, want %s at %#x", want[name]+1, s, ok, name, want[name])
		}
	}
}

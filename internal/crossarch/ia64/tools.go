package ia64

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// Build assembles src with ia64-linux-gnu-as (big-endian with -mbe when
// bigEndian) into dir/name.o and, when link is set, links it with
// ia64-linux-gnu-ld -static -e entry into dir/name. It returns the path
// of the last file built.
func Build(t testing.TB, dir, name, src string, bigEndian bool, link bool, entry string) string {
	t.Helper()
	return BuildLinked(t, dir, name, src, bigEndian, link, entry)
}

// BuildLinked is Build with extra linker arguments (such as
// --section-start=.jit=ADDR to place a section in its own segment).
func BuildLinked(t testing.TB, dir, name, src string, bigEndian bool, link bool, entry string, ldArgs ...string) string {
	t.Helper()
	as := testenv.NeedTool(t, "ia64-linux-gnu-as")
	s := filepath.Join(dir, name+".s")
	if err := os.WriteFile(s, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	obj := filepath.Join(dir, name+".o")
	args := []string{"-o", obj, s}
	if bigEndian {
		args = append([]string{"-mbe"}, args...)
	}
	// gas warns about dependency violations and ignored explicit stops
	// in automatic mode; only the exit status matters.
	if out, err := exec.Command(as, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", as, strings.Join(args, " "), err, out)
	}
	if !link {
		return obj
	}
	ld := testenv.NeedTool(t, "ia64-linux-gnu-ld")
	exe := filepath.Join(dir, name)
	largs := append([]string{"-static", "-e", entry, "-o", exe}, ldArgs...)
	largs = append(largs, obj)
	if bigEndian {
		largs = append([]string{"-EB"}, largs...)
	}
	if out, err := exec.Command(ld, largs...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", ld, strings.Join(largs, " "), err, out)
	}
	return exe
}

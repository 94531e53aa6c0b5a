package ia64

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// DirectiveSuite assembles the unwind-directive suite at src (little- and
// big-endian objects and one linked file) and returns the files' bytes,
// for fuzz seeds; none when binutils for IA-64 is not installed (a seed
// corpus may be smaller, the tests that check the suite itself fail).
func DirectiveSuite(tb testing.TB, src string) [][]byte {
	if _, err := exec.LookPath("ia64-linux-gnu-as"); err != nil {
		return nil
	}
	text, err := os.ReadFile(src)
	if err != nil {
		return nil
	}
	var out [][]byte
	dir := tb.TempDir()
	for i, v := range []struct{ be, link bool }{{false, false}, {true, false}, {false, true}} {
		p := Build(tb, dir, fmt.Sprint("d", i), string(text), v.be, v.link, "gsave")
		if b, err := os.ReadFile(p); err == nil {
			out = append(out, b)
		}
	}
	return out
}

package testenv

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Markers gdb echoes between the frames' registers and before the extra
// commands' output, so that the output splits without parsing gdb's
// frame lines.
const (
	frameMark = "--coreunwind frame "
	extraMark = "--coreunwind extra--"
)

// GDBFrameRegisters runs gdb (the binary at gdb) in batch mode on exe and
// core, with setup arguments first (e.g. "-iex", "set sysroot DIR"), and
// returns what "info registers" prints in frames 0..n-1: for each frame,
// the registers whose lines regs matches (its groups: the name, and the
// value in hex without 0x), and then what the extra commands print.
func GDBFrameRegisters(t testing.TB, gdb string, setup []string, exe, core string, n int, regs *regexp.Regexp, extra ...string) ([]map[string]uint64, string) {
	t.Helper()
	args := append([]string{"-batch", "-nx"}, setup...)
	for i := 0; i < n; i++ {
		args = append(args, "-ex", fmt.Sprintf("frame %d", i), "-ex", fmt.Sprintf("echo %s%d\\n", frameMark, i), "-ex", "info registers")
	}
	args = append(args, "-ex", "echo "+extraMark+"\\n")
	for _, e := range extra {
		args = append(args, "-ex", e)
	}
	out, err := exec.Command(gdb, append(args, exe, core)...).Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", gdb, err, out)
	}
	s, tail, ok := strings.Cut(string(out), extraMark+"\n")
	frames := strings.Split(s, frameMark)[1:]
	if !ok || len(frames) != n {
		t.Fatalf("gdb printed the registers of %d frames, want %d:\n%s", len(frames), n, out)
	}
	var all []map[string]uint64
	for _, f := range frames {
		m := map[string]uint64{}
		for _, r := range regs.FindAllStringSubmatch(f, -1) {
			v, err := strconv.ParseUint(r[2], 16, 64)
			if err != nil {
				t.Fatalf("gdb's register %s = %s: %v", r[1], r[2], err)
			}
			m[r[1]] = v
		}
		all = append(all, m)
	}
	return all, tail
}

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func init() {
	programs["gowrap"] = goBuild("gowrap", "")
}

// TestGoWrappers: a Go program panics through a method value (the
// compiler's main.T.Boom-fm), through an interface call of a value
// method on a pointer (the (*T).Boom wrapper), and through that wrapper
// on a nil pointer, where the wrapper itself panics. The core comes
// from GOTRACEBACK=crash, which prints every frame; the runtime's
// default traceback (GOTRACEBACK=single) of the same run leaves the
// wrappers out unless one called the panic, GOTRACEBACK=system keeps
// them. The crashed goroutine's main.* frames in coreunwind's text are
// the single traceback's by default and the system traceback's with
// --go-wrappers.
func TestGoWrappers(t *testing.T) {
	t.Parallel()
	exe := buildProgram(t, "gowrap")
	for _, mode := range []string{"method", "iface", "nilwrap"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			c := crashProgram(t, exe, []string{"GOTRACEBACK=crash"}, mode)
			for _, tc := range []struct {
				traceback string
				flags     []string
			}{
				{"single", nil},
				{"system", []string{"--go-wrappers"}},
			} {
				want := mainFrames(crashedGoroutineText(runtimeTraceback(t, exe, tc.traceback, mode)))
				if len(want) < 2 {
					t.Fatalf("GOTRACEBACK=%s: %d main frames", tc.traceback, len(want))
				}
				r := runCoreunwind(t, append(tc.flags, c.Core, c.Exe)...)
				got := mainFrames(crashedGoroutineText(r.Stdout))
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%v: the crashed goroutine's main frames:\n%s\nthe runtime's (GOTRACEBACK=%s):\n%s",
						tc.flags, strings.Join(got, "\n"), tc.traceback, strings.Join(want, "\n"))
				}
			}
		})
	}
}

// runtimeTraceback runs exe mode with GOTRACEBACK=traceback (a level
// that writes no core) and returns what the runtime printed.
func runtimeTraceback(t *testing.T, exe, traceback, mode string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, mode)
	cmd.Env = append(os.Environ(), "GOTRACEBACK="+traceback)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil || err == nil {
		t.Fatalf("GOTRACEBACK=%s %s %s: %v (the program must panic)\n%s", traceback, exe, mode, err, out)
	}
	return string(out)
}

// crashedGoroutineText is the first goroutine of a traceback in Go's
// text format (the runtime's or coreunwind's): its lines up to the
// blank line after it.
func crashedGoroutineText(out string) []string {
	var lines []string
	in := false
	for _, l := range strings.Split(out, "\n") {
		switch {
		case !in && strings.HasPrefix(l, "goroutine "):
			in = true
		case in && l == "":
			return lines
		case in:
			lines = append(lines, l)
		}
	}
	return lines
}

// mainFrames are the frames of the main package in lines (function
// line, then "\tfile:line +0x.." line) as "function file:line", with the
// arguments and the file's directory left out.
func mainFrames(lines []string) []string {
	var out []string
	for i := 0; i+1 < len(lines); i++ {
		fn := lines[i]
		if !strings.HasPrefix(fn, "main.") || !strings.HasPrefix(lines[i+1], "\t") {
			continue
		}
		fn = fn[:strings.LastIndex(fn, "(")]
		loc, _, _ := strings.Cut(strings.TrimPrefix(lines[i+1], "\t"), " ")
		file, line, _ := strings.Cut(loc, ":")
		if _, err := strconv.Atoi(line); err != nil {
			continue
		}
		out = append(out, fn+" "+filepath.Base(file)+":"+line)
	}
	return out
}

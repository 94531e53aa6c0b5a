package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// delveModule is the delve release the tests compare with, run through
// go run so that neither go.mod nor coreunwind's binary takes it in.
const delveModule = "github.com/go-delve/delve/cmd/dlv@v1.27.2"

// delveGoroutine is one goroutine as dlv core's "goroutines -t" lists it.
type delveGoroutine struct {
	id     uint64
	reason string // the wait reason in brackets, "" for none
	frames []delveFrame
}

type delveFrame struct {
	pc uint64
	fn string
}

var (
	ansiEscape  = regexp.MustCompile(`\x1b\[[0-9;]*m`)
	delveHeader = regexp.MustCompile(`^[* ] Goroutine (\d+) - .*?(?: \[([^\]]*)\])?$`)
	delveFrameL = regexp.MustCompile(`^\t *\d+ +0x([0-9a-f]+) in (\S+)$`)
)

// delveGoroutines runs dlv core on exe and core and reads its goroutines
// with their first frames.
func delveGoroutines(t *testing.T, exe, core string, frames int) map[uint64]*delveGoroutine {
	t.Helper()
	dir := t.TempDir()
	init := filepath.Join(dir, "init")
	if err := os.WriteFile(init, []byte(fmt.Sprintf("goroutines -t %d\nexit\n", frames)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool(), "run", delveModule, "core", exe, core, "--init", init, "--allow-non-terminal-interactive=true")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("dlv core: %v\n%s", err, truncate(string(out), 4000))
	}
	gs := map[uint64]*delveGoroutine{}
	var g *delveGoroutine
	for _, line := range strings.Split(ansiEscape.ReplaceAllString(string(out), ""), "\n") {
		if m := delveHeader.FindStringSubmatch(line); m != nil {
			id, _ := strconv.ParseUint(m[1], 10, 64)
			g = &delveGoroutine{id: id, reason: m[2]}
			gs[id] = g
			continue
		}
		if m := delveFrameL.FindStringSubmatch(line); m != nil && g != nil {
			pc, _ := strconv.ParseUint(m[1], 16, 64)
			g.frames = append(g.frames, delveFrame{pc, m[2]})
		}
	}
	if len(gs) == 0 {
		t.Fatalf("dlv core listed no goroutines:\n%s", truncate(string(out), 4000))
	}
	return gs
}

// TestDelveGoroutines: on the same core, coreunwind's goroutines are
// delve's: the same ids, the same wait reasons, and for each parked
// goroutine the same first frames (pc and function, inlined calls
// included). The running goroutine's frames are not compared: delve
// starts them on the signal stack, coreunwind on the goroutine's own.
func TestDelveGoroutines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ prog, mode string }{{"goparked", "nilmap"}, {"gofeat", "labels"}} {
		t.Run(tc.prog+"-"+tc.mode, func(t *testing.T) {
			t.Parallel()
			exe := buildProgram(t, tc.prog)
			c := crashProgram(t, exe, []string{"GOTRACEBACK=crash"}, tc.mode)
			rep, _ := unwindJSON(t, nil, c.Core, c.Exe)
			const depth = 4
			want := delveGoroutines(t, c.Exe, c.Core, depth)
			if len(rep.Goroutines) != len(want) {
				t.Errorf("coreunwind has %d goroutines, delve %d", len(rep.Goroutines), len(want))
			}
			for i := range rep.Goroutines {
				g := &rep.Goroutines[i]
				d := want[g.ID]
				if d == nil {
					t.Errorf("goroutine %d [%s]: delve does not list it", g.ID, g.State)
					continue
				}
				if d.reason != "" && d.reason != g.State {
					t.Errorf("goroutine %d: coreunwind [%s], delve [%s]", g.ID, g.State, d.reason)
				}
				if g.TID != nil {
					continue // running: see above
				}
				for k, df := range d.frames {
					if k >= len(g.Frames) {
						t.Errorf("goroutine %d: coreunwind has %d frames, delve more:\n%s", g.ID, len(g.Frames), formatGoroutine(g))
						break
					}
					pc, _ := g.Frames[k].pc()
					if pc != df.pc || g.Frames[k].Function != df.fn {
						t.Errorf("goroutine %d frame %d: coreunwind %#x %s, delve %#x %s", g.ID, k, pc, g.Frames[k].Function, df.pc, df.fn)
					}
				}
			}
		})
	}
}

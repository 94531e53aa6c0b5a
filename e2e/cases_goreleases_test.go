package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// goReleases are the Go toolchains goparked is built with besides the
// host's, fetched by the go command from the module proxy
// (GOTOOLCHAIN=go1.N.P): the oldest release read, in CI. The variable
// COREUNWIND_GO_RELEASES (space-separated toolchains) replaces the list:
// bench/goreleases.sh runs every release 1.20 to 1.25 so.
func goReleases() []string {
	if v := os.Getenv("COREUNWIND_GO_RELEASES"); v != "" {
		return strings.Fields(v)
	}
	return []string{"go1.20.14"}
}

// goReleaseBuilds are the builds of goparked TestGoReleases crashes: the
// host's toolchain ("") and each of goReleases, with DWARF and symbols
// and stripped of both (-ldflags=-s -w), and the host's for i386,
// stripped.
func goReleaseBuilds() []string {
	var out []string
	for _, rel := range append([]string{""}, goReleases()...) {
		for _, stripped := range []bool{false, true} {
			out = append(out, goReleaseProgram(rel, "", stripped))
		}
	}
	return append(out, goReleaseProgram("", "386", true))
}

// goReleaseProgram names the build of goparked with toolchain rel ("" for
// the host's) for goarch ("" for the host's), stripped or not, and
// registers it.
func goReleaseProgram(rel, goarch string, stripped bool) string {
	name := "goparked@" + rel
	if rel == "" {
		name = "goparked@host"
	}
	if goarch != "" {
		name += "-" + goarch
	}
	var flags []string
	if stripped {
		name += "-stripped"
		flags = []string{"-ldflags=-s -w"}
	}
	if _, ok := programs[name]; !ok {
		programs[name] = goToolchainBuild("goparked", rel, goarch, flags...)
	}
	return name
}

// The builds are registered before any test runs: tests read programs
// in parallel.
func init() { goReleaseBuilds() }

// goToolchainBuild builds the Go program progs/name with toolchain rel
// ("" for the host's) for goarch ("" for the host's) in a module of its
// own that asks for Go 1.20, so that every release from 1.20 on builds
// it.
func goToolchainBuild(name, rel, goarch string, flags ...string) program {
	return program{
		tools: []string{"go"},
		build: func(src, dir string) (string, error) {
			main, err := os.ReadFile(filepath.Join(src, name, "main.go"))
			if err != nil {
				return "", err
			}
			if err := os.WriteFile(filepath.Join(dir, "main.go"), main, 0o644); err != nil {
				return "", err
			}
			if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+name+"\n\ngo 1.20\n"), 0o644); err != nil {
				return "", err
			}
			exe := filepath.Join(dir, name)
			args := []string{"GOTOOLCHAIN=local", "GOARCH=" + goarch, goTool(), "build", "-o", exe}
			if rel != "" {
				args[0] = "GOTOOLCHAIN=" + rel
			}
			return exe, runIn(dir, "env", append(append(args, flags...), ".")...)
		},
	}
}

// TestGoReleases: for goparked built by each Go release, with DWARF and
// stripped, coreunwind's goroutines are those the runtime printed dying
// (ids, wait reasons, frames with file and line), the crashed goroutine
// first with the runtime's panic message, and every thread's stack ends
// where the runtime's do.
func TestGoReleases(t *testing.T) {
	t.Parallel()
	for _, prog := range goReleaseBuilds() {
		t.Run(prog, func(t *testing.T) {
			t.Parallel()
			c, gs := crashGoparked(t, prog, "nilmap")
			checkGoroutines(t, c, gs)
			if c.Run.Code != exitOK {
				t.Errorf("exit code %d, want %d; stderr:\n%s", c.Run.Code, exitOK, truncate(c.Run.Stderr, 4000))
			}
			for i := range c.Report.Threads {
				if th := &c.Report.Threads[i]; th.Error != nil {
					t.Errorf("thread %d stopped early: %s\n%s", th.TID, *th.Error, formatFrames(th, 40))
				}
			}
			// The crashed thread is walked by CFI (the linker's, or
			// the same written again from the function table), not
			// by frame pointers.
			th := c.crashed(t)
			for _, fn := range []string{"main.bump", "main.main"} {
				f := frameOf(th, fn)
				if f == nil || f.Trust != "cfi" {
					t.Errorf("%s: frame %+v, want one found by CFI:\n%s", fn, f, formatFrames(th, 40))
				}
			}
		})
	}
}

// checkGoroutines compares coreunwind's goroutines with those the runtime
// printed: the same ids and states, and each of the runtime's frames
// (function, file, line, pc) among coreunwind's, in order.
func checkGoroutines(t *testing.T, c *crashCase, gs []goDump) {
	t.Helper()
	got := map[uint64]*reportGoroutine{}
	for i := range c.Report.Goroutines {
		got[c.Report.Goroutines[i].ID] = &c.Report.Goroutines[i]
	}
	if len(got) != len(gs) {
		t.Errorf("coreunwind reports %d goroutines, the runtime printed %d; warnings %q", len(got), len(gs), c.Report.Warnings)
	}
	if len(c.Report.Goroutines) > 0 && !c.Report.Goroutines[0].Crashed {
		t.Errorf("the first goroutine, %d, is not the crashed one", c.Report.Goroutines[0].ID)
	}
	for _, want := range gs {
		g := got[uint64(want.ID)]
		if g == nil {
			t.Errorf("goroutine %d [%s] missing", want.ID, want.Status)
			continue
		}
		if g.State != want.Status {
			t.Errorf("goroutine %d: state %q, the runtime says %q", want.ID, g.State, want.Status)
		}
		if g.Error != nil {
			t.Errorf("goroutine %d: %s", want.ID, *g.Error)
		}
		compareGoroutineFrames(t, want, g)
	}
	_, after, _ := strings.Cut(c.Output, "panic: ")
	msg, _, _ := strings.Cut(after, "\n")
	msg = strings.TrimSuffix(msg, " [recovered]")
	detail := fmt.Sprintf("goroutine %d panicked: %s", runningGoroutine(t, gs).ID, msg)
	if c.Report.Crash == nil || !slices.Contains(c.Report.Crash.Details, detail) {
		t.Errorf("crash details lack %q: %+v", detail, c.Report.Crash)
	}
}

package e2e

import (
	"regexp"
	"strconv"
	"strings"
)

// goDump is one goroutine as the Go runtime printed it dying with
// GOTRACEBACK=crash (or all): the independent judge of what coreunwind
// says about a Go program.
type goDump struct {
	ID     int
	Status string // what the brackets say: "running", "chan receive", ...
	Frames []goDumpFrame
	// CreatedBy is the function that started it ("" for goroutine 1).
	CreatedBy string
}

// goDumpFrame is one frame of a goDump.
type goDumpFrame struct {
	Func string // as printed, without the arguments ("panic" for gopanic)
	File string
	Line int
	// PC is the frame's pc= (GOTRACEBACK=crash prints it), 0 for an
	// inlined frame ("(...)"), which has none.
	PC uint64
}

var (
	goDumpHeader = regexp.MustCompile(`^goroutine (\d+)(?: gp=\S+)?(?: m=\S+)?(?: mp=\S+)? \[([^\]]*)\]:$`)
	goDumpFile   = regexp.MustCompile(`^\t(.+):(\d+)(?: \+0x[0-9a-f]+)?(?: fp=\S+ sp=\S+ pc=0x([0-9a-f]+))?$`)
)

// parseGoDump reads the goroutines from a Go program's dying output.
func parseGoDump(out string) []goDump {
	var gs []goDump
	var g *goDump
	fn := ""
	created := false
	for _, line := range strings.Split(out, "\n") {
		if m := goDumpHeader.FindStringSubmatch(line); m != nil {
			id, _ := strconv.Atoi(m[1])
			status, _, _ := strings.Cut(m[2], ",") // "chan receive, 2 minutes"
			gs = append(gs, goDump{ID: id, Status: status})
			g, fn = &gs[len(gs)-1], ""
			continue
		}
		if g == nil {
			continue
		}
		if line == "" {
			g = nil
			continue
		}
		if m := goDumpFile.FindStringSubmatch(line); m != nil && fn != "" {
			n, _ := strconv.Atoi(m[2])
			pc, _ := strconv.ParseUint(m[3], 16, 64)
			if !created {
				g.Frames = append(g.Frames, goDumpFrame{Func: fn, File: m[1], Line: n, PC: pc})
			}
			fn = ""
			continue
		}
		if by, ok := strings.CutPrefix(line, "created by "); ok {
			by, _, _ = strings.Cut(by, " in goroutine ")
			g.CreatedBy, fn, created = by, by, true
			continue
		}
		if i := strings.LastIndex(line, "("); i > 0 && !strings.HasPrefix(line, "\t") {
			fn, created = line[:i], false
		}
	}
	return gs
}

// frame returns the goroutine's first frame in function fn, nil if none.
func (g *goDump) frame(fn string) *goDumpFrame {
	for i := range g.Frames {
		if g.Frames[i].Func == fn {
			return &g.Frames[i]
		}
	}
	return nil
}

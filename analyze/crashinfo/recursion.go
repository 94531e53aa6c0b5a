package crashinfo

import (
	"strings"

	"github.com/coreunwind/coreunwind/report"
)

// Cycle is a sequence of functions that repeats down a stack.
type Cycle struct {
	// Functions of one turn, innermost first, rotated to start at the
	// smallest name so that the same recursion overflowing at another
	// point of the turn gives the same cycle.
	Functions []string
	// Repeats is how many whole turns the frames hold.
	Repeats int
}

func (c *Cycle) String() string {
	if len(c.Functions) == 1 {
		return c.Functions[0]
	}
	return strings.Join(c.Functions, " -> ") + " -> " + c.Functions[0]
}

// Recursion search bounds: a cycle starts within the top maxLead frames
// (a libc call, a probe, at the overflowing end) and is at most maxPeriod
// functions long; it must turn minRepeats times to be called recursion.
const (
	maxLead    = 16
	maxPeriod  = 16
	minRepeats = 4
)

// RecursionCycle finds the cycle of functions that fills a stack: the
// shortest period that repeats most often from near the top. nil when the
// frames do not repeat (or are unnamed).
func RecursionCycle(frames []report.Frame) *Cycle {
	var names []string
	for _, f := range frames {
		if f.Function == nil || *f.Function == "" {
			names = append(names, "")
			continue
		}
		names = append(names, *f.Function)
	}
	best, bestLead, bestRep := 0, 0, 0
	for lead := 0; lead < maxLead && lead < len(names); lead++ {
		for p := 1; p <= maxPeriod && lead+p <= len(names); p++ {
			if hasEmpty(names[lead : lead+p]) {
				continue
			}
			n := lead + p
			for n < len(names) && names[n] == names[n-p] {
				n++
			}
			rep := (n - lead) / p
			if rep >= minRepeats && (rep*p > bestRep*best || best == 0) {
				best, bestLead, bestRep = p, lead, rep
			}
		}
		if best != 0 {
			break
		}
	}
	if best == 0 {
		return nil
	}
	turn := names[bestLead : bestLead+best]
	return &Cycle{Functions: rotateMin(turn), Repeats: bestRep}
}

func hasEmpty(s []string) bool {
	for _, x := range s {
		if x == "" {
			return true
		}
	}
	return false
}

// rotateMin returns the rotation of s that is smallest lexicographically.
func rotateMin(s []string) []string {
	best := 0
	for r := 1; r < len(s); r++ {
		for i := range s {
			x, y := s[(r+i)%len(s)], s[(best+i)%len(s)]
			if x != y {
				if x < y {
					best = r
				}
				break
			}
		}
	}
	out := make([]string, len(s))
	for i := range s {
		out[i] = s[(best+i)%len(s)]
	}
	return out
}

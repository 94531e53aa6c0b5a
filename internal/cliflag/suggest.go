package cliflag

import (
	"flag"
	"strings"
)

// Closest returns the candidate nearest to name by edit distance (a
// swap of two neighbouring letters counts as one edit, the commonest
// typo), or "" when none is near enough to be what the user meant: at
// most two edits, and fewer edits than name has letters (so "x" does not
// suggest "o").
func Closest(name string, candidates []string) string {
	best, bestDist := "", 3
	for _, c := range candidates {
		if d := editDistance(name, c); d < bestDist && d < len(name) {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b
// (Levenshtein plus adjacent transpositions), on bytes: flag and command
// names are ASCII.
func editDistance(a, b string) int {
	// Three rows of the dynamic-programming table: the one before the
	// previous is what a transposition looks back to.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// UnknownFlag returns the name of the undefined flag a flag.FlagSet's
// Parse error is about ("fromat" for --fromat), or "" for other errors.
// The flag package has no typed error for it: its message is the only
// place the name is, and its wording has been stable since Go 1.
func UnknownFlag(err error) string {
	if err == nil {
		return ""
	}
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	return strings.TrimLeft(name, "-")
}

// FlagNames lists the flags defined in fs, for Closest.
func FlagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

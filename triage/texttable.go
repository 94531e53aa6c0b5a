package triage

import (
	"io"
	"strings"
	"unicode/utf8"
)

// The buckets table is for a terminal: a row wider than the screen wraps
// into an unreadable zigzag (a C++ signature of three frames and two
// paths made rows of ~290 columns). fitTable first cuts the paths (they
// lose their start, marked "…"), then leaves out the columns a reader
// needs least, and only then cuts the signature (it loses its end): the
// signature is what the table is for. The JSON summary keeps every
// character.

// column is one column of a text table.
type column struct {
	header string
	cells  []string
	// min is the width the column may be cut down to; 0: never cut.
	min int
	// cutStart cuts a cell's start rather than its end: a path's file
	// name is at its end.
	cutStart bool
	// cutLast is cut only when no column is left to leave out.
	cutLast bool
	// drop orders the columns left out when the cut table is still too
	// wide, lowest first; 0: never left out.
	drop int
}

// columnGap is the space between two columns.
const columnGap = 2

// writeTable writes cols as a table of at most width columns (0: no
// limit): left-aligned cells, the last column unpadded.
func writeTable(w io.Writer, cols []column, width int) error {
	cols, widths := fitTable(cols, width)
	var b strings.Builder
	rows := 0
	if len(cols) > 0 {
		rows = len(cols[0].cells)
	}
	for r := -1; r < rows; r++ {
		for i, c := range cols {
			cell := c.header
			if r >= 0 {
				cell = c.cells[r]
			}
			cell = cut(cell, widths[i], c.cutStart)
			b.WriteString(cell)
			if i < len(cols)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell)+columnGap))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// fitTable returns the columns kept and their widths, the sum of which
// (with the gaps) is at most width when cutting and dropping allow.
func fitTable(cols []column, width int) ([]column, []int) {
	for {
		widths := make([]int, len(cols))
		total := columnGap * (len(cols) - 1)
		for i, c := range cols {
			widths[i] = utf8.RuneCountInString(c.header)
			for _, s := range c.cells {
				widths[i] = max(widths[i], utf8.RuneCountInString(s))
			}
			total += widths[i]
		}
		if width <= 0 {
			return cols, widths
		}
		drop := -1
		for i, c := range cols {
			if c.drop > 0 && (drop < 0 || c.drop < cols[drop].drop) {
				drop = i
			}
		}
		total = narrow(cols, widths, total, width, drop < 0)
		if total <= width || drop < 0 {
			return cols, widths
		}
		cols = append(cols[:drop:drop], cols[drop+1:]...)
	}
}

// narrow cuts columns, one character at a time from the one with the
// most room above its minimum (long columns give up the most), until the
// table is width wide or no column may be cut further; the cutLast
// columns only when all is true. It returns the table's new width.
func narrow(cols []column, widths []int, total, width int, all bool) int {
	for total > width {
		j := -1
		for i, c := range cols {
			if c.min > 0 && (all || !c.cutLast) && widths[i] > c.min && (j < 0 || widths[i]-c.min > widths[j]-cols[j].min) {
				j = i
			}
		}
		if j < 0 {
			break
		}
		widths[j]--
		total--
	}
	return total
}

// cut shortens s to width characters, "…" standing for what is left out.
func cut(s string, width int, fromStart bool) string {
	n := utf8.RuneCountInString(s)
	if n <= width {
		return s
	}
	if width <= 1 {
		return "…"
	}
	r := []rune(s)
	if fromStart {
		return "…" + string(r[n-width+1:])
	}
	return string(r[:width-1]) + "…"
}

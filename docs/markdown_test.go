// Package docs holds the reference pages the README links to; its tests
// check that every Markdown page of the repository renders as written
// (code fences closed, relative links and anchors that resolve) and
// that the README starts with its two set-up commands.
package docs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the module's root, seen from this package's directory.
const repoRoot = ".."

// markdownFiles lists the repository's Markdown pages, relative to the
// root: not hidden directories, nor testdata/elfutils (unpacked from
// Debian's source package by test.sh, not ours).
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, p)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") || rel == filepath.Join("testdata", "elfutils") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".md") {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"README.md", filepath.Join("docs", "flags.md")} {
		if !contains(files, want) {
			t.Fatalf("found %v, not %s: is repoRoot right?", files, want)
		}
	}
	return files
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func readPage(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fenceLine matches a line that opens or closes a fenced code block
// (CommonMark: up to three spaces, then three or more backticks or
// tildes, then an info string that may not hold backticks).
var fenceLine = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})(.*)$")

// fence is one fenced code block: the lines of its opening and closing
// fences (1-based), the fence's marker and its info string.
type fence struct {
	open, close int
	marker      string
	info        string
}

// fences pairs the fences of a page as a CommonMark renderer does. A
// block that is never closed runs to the end of the page (close 0). A
// fence with an info string met inside a block cannot close it, and is
// almost always a missing closing fence before it: it is reported in
// suspects.
func fences(page string) (blocks []fence, suspects []string) {
	var cur *fence
	for i, line := range strings.Split(page, "\n") {
		m := fenceLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		marker, info := m[1], strings.TrimSpace(m[2])
		if cur == nil {
			if marker[0] == '`' && strings.Contains(info, "`") {
				continue // an inline code span, not a fence
			}
			blocks = append(blocks, fence{open: i + 1, marker: marker, info: info})
			cur = &blocks[len(blocks)-1]
			continue
		}
		if marker[0] == cur.marker[0] && len(marker) >= len(cur.marker) && info == "" {
			cur.close = i + 1
			cur = nil
			continue
		}
		if marker[0] == cur.marker[0] && info != "" {
			suspects = append(suspects, fmt.Sprintf("line %d: %q inside the code block opened at line %d (a fence with an info string cannot close it: is a closing %s missing before it?)", i+1, line, cur.open, cur.marker))
		}
	}
	return blocks, suspects
}

// TestCodeFencesClosed: every fenced code block of every Markdown page
// is closed, and none swallows the opening of the next one (an
// unclosed block turns the rest of the page into code).
func TestCodeFencesClosed(t *testing.T) {
	for _, rel := range markdownFiles(t) {
		blocks, suspects := fences(readPage(t, rel))
		for _, b := range blocks {
			if b.close == 0 {
				t.Errorf("%s:%d: code block %s%s is never closed: the rest of the page renders as code", rel, b.open, b.marker, b.info)
			}
		}
		for _, s := range suspects {
			t.Errorf("%s: %s", rel, s)
		}
	}
}

// TestFencesDetectUnclosed: the check above finds the README's old
// fault, a fence opened in one section and closed sections later.
func TestFencesDetectUnclosed(t *testing.T) {
	page := "text\n```sh\nqemu-s390x ./prog\n**RISC-V 64**: prose\n```sh\ncoreunwind core\n```\nmore\n"
	_, suspects := fences(page)
	if len(suspects) != 1 || !strings.Contains(suspects[0], "line 5") {
		t.Errorf("suspects %q, want one at line 5", suspects)
	}
	blocks, _ := fences("a\n```\ncode\n")
	if len(blocks) != 1 || blocks[0].close != 0 {
		t.Errorf("blocks %+v, want one unclosed", blocks)
	}
}

// codeBlanked is a page's lines with its fenced code blocks blanked (the
// line count kept): headings and links are looked for outside them.
func codeBlanked(page string) []string {
	blocks, _ := fences(page)
	lines := strings.Split(page, "\n")
	for _, b := range blocks {
		end := b.close
		if end == 0 {
			end = len(lines)
		}
		for i := b.open - 1; i < end; i++ {
			lines[i] = ""
		}
	}
	return lines
}

// outsideCode is a page without its code blocks and inline code spans.
func outsideCode(page string) string {
	return codeSpan.ReplaceAllString(strings.Join(codeBlanked(page), "\n"), "``")
}

var (
	codeSpan = regexp.MustCompile("`[^`\n]*`")
	// link is an inline link or image: [text](target) or [text](target "title").
	link = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// heading is an ATX heading.
	heading = regexp.MustCompile(`(?m)^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// anchors are the ids GitHub gives a page's headings: lower case, spaces
// to hyphens, punctuation other than - and _ dropped, repeats suffixed
// -1, -2, ...
func anchors(page string) map[string]bool {
	ids := map[string]bool{}
	seen := map[string]int{}
	for _, m := range heading.FindAllStringSubmatch(strings.Join(codeBlanked(page), "\n"), -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				b.WriteRune(r)
			}
		}
		id := b.String()
		if n := seen[id]; n > 0 {
			ids[fmt.Sprintf("%s-%d", id, n)] = true
		} else {
			ids[id] = true
		}
		seen[id]++
	}
	return ids
}

// TestRelativeLinksResolve: every relative link of every Markdown page
// names a file or directory that exists, and its #anchor, if any, a
// heading of the Markdown page it points at.
func TestRelativeLinksResolve(t *testing.T) {
	for _, rel := range markdownFiles(t) {
		page := readPage(t, rel)
		for _, m := range link.FindAllStringSubmatch(outsideCode(page), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			dest := rel
			if file != "" {
				dest = filepath.Join(filepath.Dir(rel), file)
				if _, err := os.Stat(filepath.Join(repoRoot, dest)); err != nil {
					t.Errorf("%s: link %q: %s does not exist", rel, target, dest)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			if !anchors(readPage(t, dest))[anchor] {
				t.Errorf("%s: link %q: %s has no heading with the anchor #%s", rel, target, dest, anchor)
			}
		}
	}
}

// readmeStart is how the README must begin: its title, then the two
// set-up commands a newcomer copies, in a sh block.
const readmeStart = "# coreunwind\n\n```sh\n" +
	"go run ./cmd/coreunwind testdata/cores/segv-static/core testdata/cores/segv-static/segv\n" +
	"./test.sh\n" +
	"```\n"

// TestReadmeStartsWithSetUp: the README's first code block is exactly
// the two set-up commands, at the top.
func TestReadmeStartsWithSetUp(t *testing.T) {
	page := readPage(t, "README.md")
	if !strings.HasPrefix(page, readmeStart) {
		n := min(len(page), len(readmeStart)+80)
		t.Errorf("README.md begins\n%s\nwant\n%s", page[:n], readmeStart)
	}
	blocks, _ := fences(page)
	if len(blocks) == 0 || blocks[0].open != 3 || blocks[0].close != 6 || blocks[0].info != "sh" {
		t.Errorf("README.md's first code block is %+v, want the sh block of lines 3-6", blocks)
	}
}

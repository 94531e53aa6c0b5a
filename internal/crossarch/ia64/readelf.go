package ia64

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// ReadelfEntry is one entry of ia64-linux-gnu-readelf -u output.
type ReadelfEntry struct {
	Function   string
	Start, End uint64
	InfoOffset uint64
	Version    int
	Flags      uint64
	Length     int
	Records    []string // padding included, as printed
}

var (
	entryRE = regexp.MustCompile(`^<([^>]*)>: \[0x([0-9a-f]+)-0x([0-9a-f]+)\], info at \+0x([0-9a-f]+)$`)
	infoRE  = regexp.MustCompile(`^\s+v(\d+), flags=0x([0-9a-f]+) \([^)]*\), len=(\d+) bytes$`)
)

// ReadelfU runs ia64-linux-gnu-readelf -u on path and parses its entries.
func ReadelfU(t testing.TB, path string) []ReadelfEntry {
	t.Helper()
	re := testenv.NeedTool(t, "ia64-linux-gnu-readelf")
	out, err := exec.Command(re, "-u", path).CombinedOutput()
	if err != nil {
		t.Fatalf("readelf -u %s: %v\n%s", path, err, out)
	}
	ents, err := ParseReadelfU(string(out))
	if err != nil {
		t.Fatal(err)
	}
	return ents
}

// ParseReadelfU parses readelf -u text.
func ParseReadelfU(out string) ([]ReadelfEntry, error) {
	var ents []ReadelfEntry
	for _, line := range strings.Split(out, "\n") {
		if m := entryRE.FindStringSubmatch(line); m != nil {
			e := ReadelfEntry{Function: m[1]}
			e.Start, _ = strconv.ParseUint(m[2], 16, 64)
			e.End, _ = strconv.ParseUint(m[3], 16, 64)
			e.InfoOffset, _ = strconv.ParseUint(m[4], 16, 64)
			ents = append(ents, e)
			continue
		}
		if len(ents) == 0 {
			continue
		}
		e := &ents[len(ents)-1]
		if m := infoRE.FindStringSubmatch(line); m != nil {
			e.Version, _ = strconv.Atoi(m[1])
			e.Flags, _ = strconv.ParseUint(m[2], 16, 64)
			e.Length, _ = strconv.Atoi(m[3])
			continue
		}
		if s := strings.TrimSpace(line); s != "" && strings.Contains(s, ":") {
			e.Records = append(e.Records, s)
		}
	}
	if len(ents) == 0 {
		return nil, fmt.Errorf("readelf -u: no entries in output:\n%s", out)
	}
	return ents, nil
}

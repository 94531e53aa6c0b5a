package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestGoFatalTriage: triage signs a Go program's fatal errors by the
// runtime's message and the first frames outside the runtime (and sync,
// whose own fatal errors it raises): two cores of concurrent map writes
// are one bucket, naming the writing function; a mutex unlocked twice
// another; a deadlock, found by the scheduler on no goroutine, a third,
// the message alone.
func TestGoFatalTriage(t *testing.T) {
	t.Parallel()
	exe := buildProgram(t, "gofeat")
	dir := t.TempDir()
	for i, mode := range []string{"mapwrites", "mapwrites", "throw", "deadlock"} {
		c := crashProgram(t, exe, []string{"GOTRACEBACK=crash"}, mode)
		if err := os.Rename(c.Core, filepath.Join(dir, fmt.Sprintf("core.%d.%s", i, mode))); err != nil {
			t.Fatal(err)
		}
	}
	r := runCoreunwind(t, "triage", "--format", "json", "--search-path", filepath.Dir(exe), dir)
	if r.Code != exitOK {
		t.Fatalf("triage: exit %d: %s", r.Code, r.Stderr)
	}
	var tri struct {
		Buckets []struct {
			Signature string `json:"signature"`
			Count     int    `json:"count"`
		} `json:"buckets"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &tri); err != nil {
		t.Fatalf("triage JSON: %v\n%s", err, r.Stdout)
	}
	got := map[string]int{}
	for _, b := range tri.Buckets {
		got[b.Signature] = b.Count
	}
	want := map[string]int{
		"fatal error: concurrent map writes | main.writer":               2,
		"fatal error: sync: unlock of unlocked mutex | main.unlockTwice": 1,
		"fatal error: all goroutines are asleep - deadlock!":             1,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("triage buckets (signature: cores) %v, want %v\n%s", got, want, r.Stdout)
	}
}

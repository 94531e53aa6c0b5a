package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestGoPanicTriage: triage buckets a Go program's panics by the panic's
// kind and the first frames outside the Go runtime, not by the runtime
// function that reported them (runtime.mapassign_faststr for every
// assignment to a nil map of strings). Two nil-map assignments in two
// functions are two buckets, each naming its function; the same one
// reached from main and from a goroutine main spawned is one.
func TestGoPanicTriage(t *testing.T) {
	t.Parallel()
	forEachGoparked(t, goPanicTriage)
}

func goPanicTriage(t *testing.T, prog string) {
	exe := buildProgram(t, prog)
	dir := t.TempDir()
	for _, mode := range []string{"nilmap", "nilmap-store", "nilmap-spawned"} {
		c := crashProgram(t, exe, []string{"GOTRACEBACK=crash"}, mode)
		g := runningGoroutine(t, parseGoDump(c.Output))
		// The spawned goroutine is another goroutine than main's.
		if spawned := mode == "nilmap-spawned"; spawned == (g.ID == 1) {
			t.Fatalf("%s: goroutine %d panicked; output:\n%s", mode, g.ID, truncate(c.Output, 4000))
		}
		if err := os.Rename(c.Core, filepath.Join(dir, "core."+mode)); err != nil {
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
		"panic: assignment to entry in nil map | main.bump":  2,
		"panic: assignment to entry in nil map | main.store": 1,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("triage buckets (signature: cores) %v, want %v\n%s", got, want, r.Stdout)
	}
}

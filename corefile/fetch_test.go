package corefile

import (
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestFetchByBuildID: a core whose files are nowhere local (an empty
// sysroot) gets them from FetchByBuildID, all modules at once; a fetched
// file with another build ID is refused like a local one, and a failed
// fetch is a warning naming the module and its build ID.
func TestFetchByBuildID(t *testing.T) {
	dir := t.TempDir()
	prog := buildC(t, dir, "crash")
	core, facts := crash(t, prog, "segv", "0")
	probe, err := Open(core, Options{})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]string{} // what a server would hold
	for _, m := range probe.Modules {
		if !m.InCore && m.BuildID != "" {
			byID[m.BuildID] = m.File
		}
	}
	probe.Close()
	if len(byID) < 3 {
		t.Fatalf("want the program, libc and the loader with build IDs; have %v", byID)
	}

	// Each fetch waits until all have started (or a bound passes): the
	// modules are fetched concurrently only if they all get here.
	var mu sync.Mutex
	started := 0
	all := make(chan struct{})
	fetch := func(id string) (string, error) {
		mu.Lock()
		started++
		if started == len(byID) {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(5 * time.Second):
			return "", errors.New("fetches were not concurrent")
		}
		return byID[id], nil
	}
	empty := t.TempDir()
	c, err := Open(core, Options{Sysroot: empty, FetchByBuildID: fetch})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range c.Modules {
		if !m.InCore && (!m.Found || m.File != byID[m.BuildID]) {
			t.Errorf("module %s: file %q found %v", m.Path, m.File, m.Found)
		}
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings: %q", c.Warnings)
	}
	checkMemory(t, c, facts)
	c.Close()

	// A server that sends the program for every build ID, and one that
	// has nothing. The libraries are then taken from their recorded paths
	// (as a last resort after the sysroot: their build IDs match), never
	// from the wrong file, and the warnings say why.
	libc := ""
	for id, p := range byID {
		if filepath.Base(p) == "libc.so.6" {
			libc = id
		}
	}
	c, err = Open(core, Options{Sysroot: empty, FetchByBuildID: func(string) (string, error) { return prog, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if m := moduleNamed(c, "libc.so.6"); m == nil || m.File == prog || !hasWarning(c, m.Path, "differs from") {
		t.Errorf("another build's file accepted; warnings %q", c.Warnings)
	}
	c.Close()
	c, err = Open(core, Options{Sysroot: empty, FetchByBuildID: func(id string) (string, error) {
		return "", errors.New("debuginfod: executable for build ID " + id + ": not found on any server")
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if m := moduleNamed(c, "libc.so.6"); m == nil || m.File != m.Path || !hasWarning(c, m.Path, "not found", libc) {
		t.Errorf("failed fetch: warnings %q", c.Warnings)
	}
}

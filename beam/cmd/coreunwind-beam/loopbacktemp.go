package main

import (
	"os"
	"path/filepath"
)

// loopbackPlaceholders is the pattern of the empty file Beam's universal
// runner creates in os.TempDir() for every LOOPBACK run, the embedded
// prism runner's included, and never removes (runnerlib/execute.go in
// Beam 2.77.0, apache/beam#27569): each run left one in /tmp.
const loopbackPlaceholders = "beamloopbackworker-*"

// removingLoopbackPlaceholders runs fn, then removes the placeholders
// that appeared in os.TempDir() meanwhile and are still empty regular
// files. In loopback mode Beam never uses them (the workers are this
// process), so one another run made meanwhile may go too.
func removingLoopbackPlaceholders(fn func() error) error {
	pattern := filepath.Join(os.TempDir(), loopbackPlaceholders)
	before := map[string]bool{}
	if old, err := filepath.Glob(pattern); err == nil {
		for _, p := range old {
			before[p] = true
		}
	}
	defer func() {
		made, _ := filepath.Glob(pattern)
		for _, p := range made {
			if fi, err := os.Lstat(p); err == nil && !before[p] && fi.Mode().IsRegular() && fi.Size() == 0 {
				os.Remove(p)
			}
		}
	}()
	return fn()
}

package main

import (
	"fmt"
	"os"

	"github.com/coreunwind/coreunwind/internal/tempname"
)

// inPrivateTempDir runs fn with TMPDIR pointing at a directory of its
// own, removed afterwards. Beam's universal runner, in LOOPBACK mode,
// creates an empty placeholder worker file (beamloopbackworker-*) in
// os.TempDir() that it never removes (runnerlib/execute.go in Beam
// 2.77.0: apache/beam#27569): each run left one in /tmp. Anything else
// this process puts in TMPDIR meanwhile cleans up after itself, so the
// directory holds only Beam's leftovers when it is removed.
func inPrivateTempDir(fn func() error) error {
	dir, err := os.MkdirTemp("", tempname.Pattern("beam-loopback"))
	if err != nil {
		return fmt.Errorf("temporary directory: %w", err)
	}
	defer os.RemoveAll(dir)
	old, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	defer func() {
		if had {
			os.Setenv("TMPDIR", old)
		} else {
			os.Unsetenv("TMPDIR")
		}
	}()
	return fn()
}

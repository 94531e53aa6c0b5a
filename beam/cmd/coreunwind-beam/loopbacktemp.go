package main

import "github.com/coreunwind/coreunwind/internal/tempname"

// inPrivateTempDir runs fn with TMPDIR pointing at a directory of its
// own, removed afterwards. Beam's universal runner, in LOOPBACK mode,
// creates an empty placeholder worker file (beamloopbackworker-*) in
// os.TempDir() that it never removes (runnerlib/execute.go in Beam
// 2.77.0: apache/beam#27569): each run left one in /tmp. Anything else
// this process puts in TMPDIR meanwhile cleans up after itself.
func inPrivateTempDir(fn func() error) error {
	return tempname.InPrivateDir("beam-loopback", func(string) error { return fn() })
}

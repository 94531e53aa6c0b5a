package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/exitcode"
)

// TestLiveUsage: combinations of the live-process flags that make no
// sense are usage errors that say why, before any process is touched.
func TestLiveUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-p", "1", "core"}, "takes no core"},
		{[]string{"--pid", "-3"}, "want a process id"},
		{[]string{"--dump", "x.core", "core"}, "need -p PID"},
		{[]string{"--samples", "5", "core"}, "need -p PID"},
		{[]string{"-p", "1", "--samples", "5"}, "give --format pprof"},
		{[]string{"-p", "1", "--samples", "5", "--format", "pprof", "--dump", "x", "-o", "y"}, "not with --samples"},
		{[]string{"-p", "1", "--threads", "crashed"}, "no crashed thread"},
		{[]string{"-p", "1", "--format", "pprof", "-o", "p", "--samples", "3", "--interval", "-1s"}, "positive duration"},
		{[]string{"gcore"}, "one process id"},
		{[]string{"gcore", "abc"}, "want a process id"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, &stdout, &stderr)
		if code != exitcode.Usage || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("coreunwind %s: exit %d, stderr %q; want %d and %q", strings.Join(tt.args, " "), code, stderr.String(), exitcode.Usage, tt.want)
		}
	}
}

#!/bin/sh
# goreleases.sh: the whole Go release matrix of e2e's TestGoReleases.
# goparked is built by every Go release from 1.20 on (the toolchains come
# from the Go module proxy through GOTOOLCHAIN; the first run downloads
# them) and by the host's, each with DWARF and stripped (-ldflags=-s -w),
# crashed with GOTRACEBACK=crash, and coreunwind's goroutines compared
# with the ones the runtime printed. CI runs go1.20.14 and the host's
# only. Prints go test's verdict per build.
#
# Environment: RELEASES (space-separated toolchains, default below).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
RELEASES=${RELEASES:-"go1.20.14 go1.21.13 go1.22.12 go1.23.12 go1.24.13 go1.25.14"}

cd "$ROOT"
COREUNWIND_GO_RELEASES="$RELEASES" go test -count=1 -timeout 60m -v -run 'TestGoReleases' ./e2e/ |
	grep -E '^(=== RUN|--- |\s+--- |ok|FAIL|PASS)|_test.go:' || true

#!/bin/sh
# goarches.sh: the Go goroutine comparison (e2e TestGoroutinesCrossArch)
# on every arch qemu-user writes Go cores for: arm64, s390x, arm and
# ppc64le (the default test run crashes arm64 and s390x only, to keep CI
# short). Needs go, qemu-user (qemu-aarch64, qemu-s390x, qemu-arm,
# qemu-ppc64le) and core dumps allowed. riscv64 is not among them:
# qemu-riscv64 7.2 writes no core.
set -eu
cd "$(dirname "$0")/.."
COREUNWIND_GO_ARCHES=all exec go test -count=1 -run 'TestGoroutinesCrossArch' "$@" ./e2e/

#!/bin/sh
# Runs coreunwind's whole test suite, installing what the tests need
# (Debian 12, as root) when it is missing. CI calls this script.
set -eu
cd "$(dirname "$0")"
export PATH="$PATH:/usr/local/go/bin:$HOME/go/bin:$HOME/.cargo/bin"

missing=""
command -v gdb >/dev/null 2>&1 || missing="$missing gdb"
command -v eu-stack >/dev/null 2>&1 || missing="$missing elfutils"
command -v readelf >/dev/null 2>&1 || missing="$missing binutils"
command -v gcc >/dev/null 2>&1 || missing="$missing gcc"
command -v g++ >/dev/null 2>&1 || missing="$missing g++"
[ -d /usr/lib/debug/.build-id ] || missing="$missing libc6-dbg"
[ -e /usr/include/libunwind.h ] || missing="$missing libunwind-dev"
if [ -n "$missing" ]; then
	echo "test.sh: installing$missing" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

# The end-to-end tests crash programs and read the cores the kernel
# writes into the working directory.
ulimit -c unlimited
pattern=$(cat /proc/sys/kernel/core_pattern)
if [ "$pattern" != "core" ]; then
	echo core > /proc/sys/kernel/core_pattern 2>/dev/null ||
		echo "test.sh: warning: core_pattern is '$pattern', not 'core'; the end-to-end tests need kernel cores in the working directory" >&2
fi

# Style gates: formatting, vet and staticcheck, as CI requires.
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
	echo "test.sh: gofmt would change:" $unformatted >&2
	exit 1
fi
go vet ./...
if ! command -v staticcheck >/dev/null 2>&1; then
	go install honnef.co/go/tools/cmd/staticcheck@2026.2.2
fi
staticcheck ./...
CI="${CI:-}" go test -timeout 30m ./...

#!/bin/sh
# goroutines.sh [OUTDIR]: coreunwind's CPU time on the core of a Go
# program with 100,000 goroutines, against dlv core's on the same core.
#
# Builds e2e/testdata/progs/gofeat ("many N": N goroutines blocked in a
# channel receive, then main panics with GOTRACEBACK=crash), its core,
# cmd/coreunwind, and delve (pinned, with go install into OUTDIR/bin: the
# module never enters coreunwind's go.mod). Then it runs each tool
# RUNS times (default 3) under /usr/bin/time and prints the median user
# and system CPU seconds, the wall seconds and peak RSS:
#
#   coreunwind --format json  every goroutine, every frame
#   coreunwind (text)         the same, grouped as the runtime's traceback
#   dlv core                  goroutines -t 64 (every goroutine, 64 frames)
#
# The goal (issue 22): coreunwind under 2 s of CPU, under a fifth of
# dlv's. Environment: GO, N (default 100000), RUNS, DELVE (module@version).
set -eu

OUTDIR=${1:-/tmp/coreunwind-bench-goroutines}
GO=${GO:-go}
N=${N:-100000}
RUNS=${RUNS:-3}
DELVE=${DELVE:-github.com/go-delve/delve/cmd/dlv@v1.27.2}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)

case $(cat /proc/sys/kernel/core_pattern) in
"|"* | */*)
	echo "goroutines.sh: core_pattern must be a plain file name such as 'core'" >&2
	exit 1
	;;
esac

mkdir -p "$OUTDIR/bin" "$OUTDIR/prog" "$OUTDIR/core"
OUTDIR=$(cd "$OUTDIR" && pwd)

echo "building coreunwind, gofeat and $DELVE" >&2
(cd "$ROOT" && "$GO" build -o "$OUTDIR/bin/coreunwind" ./cmd/coreunwind)
cp "$ROOT/e2e/testdata/progs/gofeat/main.go" "$OUTDIR/prog/main.go"
(cd "$OUTDIR/prog" && GO111MODULE=off "$GO" build -o "$OUTDIR/bin/gofeat" main.go)
GOBIN="$OUTDIR/bin" "$GO" install "$DELVE"

echo "crashing gofeat with $N goroutines" >&2
rm -f "$OUTDIR/core/core"
(cd "$OUTDIR/core" && sh -c 'ulimit -c unlimited; GOTRACEBACK=crash exec "$0" many "$1"' "$OUTDIR/bin/gofeat" "$N") >/dev/null 2>&1 || true
CORE=$OUTDIR/core/core
[ -f "$CORE" ] || { echo "goroutines.sh: no core in $OUTDIR/core" >&2; exit 1; }
printf 'goroutines -t 64\nexit\n' >"$OUTDIR/dlv-init"

# measure NAME CMD...: RUNS runs; prints NAME, the median user, system
# and wall seconds and peak RSS (KB) of the runs.
measure() {
	name=$1
	shift
	i=0
	: >"$OUTDIR/$name.times"
	while [ $i -lt "$RUNS" ]; do
		/usr/bin/time -f '%U %S %e %M' -a -o "$OUTDIR/$name.times" "$@" >"$OUTDIR/$name.out" 2>/dev/null </dev/null || true
		i=$((i + 1))
	done
	sort -n -k1,1 "$OUTDIR/$name.times" | awk -v n="$name" -v runs="$RUNS" '
		NR == int((runs + 1) / 2) { printf "%-22s %8.2f %8.2f %8.2f %8.2f %10d\n", n, $1, $2, $1 + $2, $3, $4 }'
}

printf '%-22s %8s %8s %8s %8s %10s\n' tool user_s sys_s cpu_s wall_s rss_kb
measure coreunwind-json "$OUTDIR/bin/coreunwind" --format json "$CORE" "$OUTDIR/bin/gofeat"
measure coreunwind-text "$OUTDIR/bin/coreunwind" "$CORE" "$OUTDIR/bin/gofeat"
measure dlv "$OUTDIR/bin/dlv" core "$OUTDIR/bin/gofeat" "$CORE" --init "$OUTDIR/dlv-init" --allow-non-terminal-interactive=true
echo "goroutines: coreunwind $(grep -c '"state"' "$OUTDIR/coreunwind-json.out"), dlv $(grep -c 'Goroutine [0-9]' "$OUTDIR/dlv.out")" >&2

#!/bin/sh
# python.sh [-n RUNS] [OUTDIR]: what the Python frames cost. Crashes
# Debian's python3.11 (libpython linked in, python3.11-dbg's debug file
# installed: the DWARF layout) running 16 threads, each 60 Python calls
# deep in time.sleep, while the main thread is 400 calls deep in
# os.abort(); then times coreunwind's full JSON report of that core
# with the Python frames and with --no-python (the same report, the
# evaluator's native frames left as they are), RUNS runs each, and
# prints their CPU time (user + sys, /usr/bin/time) and wall time and the
# ratio. Goal: the report with Python frames at most 1.2x the one without.
#
# Needs: go, /usr/bin/python3.11, /usr/bin/time, core_pattern a plain
# file name ("core"). Environment: GO, COREUNWIND (a coreunwind binary to
# time instead of building the checkout).
set -eu

runs=7
if [ "${1:-}" = "-n" ]; then
	runs=$2
	shift 2
fi
OUTDIR=${1:-/tmp/coreunwind-bench-python}
HERE=$(cd "$(dirname "$0")" && pwd)
GO=${GO:-go}
PYTHON=/usr/bin/python3.11

case $(cat /proc/sys/kernel/core_pattern) in
"|"* | */*)
	echo "python.sh: core_pattern must be a plain file name such as 'core'" >&2
	exit 1
	;;
esac
[ -x "$PYTHON" ] || { echo "python.sh: $PYTHON is not installed (Debian package python3.11)" >&2; exit 1; }

mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
if [ -z "${COREUNWIND:-}" ]; then
	(cd "$HERE/.." && "$GO" build -o "$OUTDIR/coreunwind" ./cmd/coreunwind)
	COREUNWIND=$OUTDIR/coreunwind
fi

cat >"$OUTDIR/app.py" <<'PY'
import os, threading, time

def park(n, ready):
    if n == 0:
        ready.release()
        while True:
            time.sleep(1)
    park(n - 1, ready)

def down(n):
    if n == 0:
        os.abort()
    down(n - 1)

ready = threading.Semaphore(0)
for _ in range(16):
    threading.Thread(target=park, args=(60, ready), daemon=True).start()
for _ in range(16):
    ready.acquire()
down(400)
PY
rm -f "$OUTDIR/core"
(cd "$OUTDIR" && sh -c 'ulimit -c unlimited; exec "$0" app.py' "$PYTHON") >/dev/null 2>&1 || true
[ -f "$OUTDIR/core" ] || { echo "python.sh: no core in $OUTDIR" >&2; exit 1; }

# measure NAME FLAGS...: RUNS runs after one warmup; prints
# "NAME cpu_ms wall_ms" (means per run).
measure() {
	name=$1
	shift
	"$COREUNWIND" "$@" "$OUTDIR/core" "$PYTHON" >"$OUTDIR/$name.json" 2>/dev/null || true
	cpu=0
	wall=0
	i=0
	while [ $i -lt "$runs" ]; do
		/usr/bin/time -f '%e %U %S' -o "$OUTDIR/time.txt" "$COREUNWIND" "$@" "$OUTDIR/core" "$PYTHON" >/dev/null 2>&1 || true
		read -r e u s <"$OUTDIR/time.txt"
		cpu=$(echo "$cpu + ($u + $s) * 1000" | bc)
		wall=$(echo "$wall + $e * 1000" | bc)
		i=$((i + 1))
	done
	echo "$name $(echo "$cpu / $runs" | bc) $(echo "$wall / $runs" | bc)"
}

with=$(measure python --format json --no-cache --max-frames 1000000)
without=$(measure native --format json --no-cache --max-frames 1000000 --no-python)
frames=$(grep -c '"language": "python"' "$OUTDIR/python.json" || true)
echo "core: $OUTDIR/core (17 threads, $frames Python frames), $runs runs each"
printf '%-28s %10s %10s\n' "report" "CPU ms" "wall ms"
set -- $with
printf '%-28s %10s %10s\n' "with Python frames" "$2" "$3"
wcpu=$2
wwall=$3
set -- $without
printf '%-28s %10s %10s\n' "--no-python" "$2" "$3"
echo "ratio: CPU $(echo "scale=2; $wcpu / $2" | bc)x, wall $(echo "scale=2; $wwall / $3" | bc)x (goal: at most 1.2x)"

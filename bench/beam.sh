#!/bin/sh
# beam.sh [WORKDIR]: the Beam pipeline's overhead per core. Triages the
# archive triage-cores.sh builds ($CORES cores, default 1000) with
#   coreunwind triage -j $JOBS         (one process, the local runner)
#   coreunwind-beam                    (the pipeline, embedded prism
#                                       runner, workers in the process)
# both cold (--no-cache), each run twice (the first brings the cores into
# the page cache), checks that the JSON outputs are the same bytes, and
# prints cores per second, CPU time per core (user + system) and peak
# RSS; the pipeline's fixed cost (a run without cores) and its cost per
# core without it; then how many one-CPU workers 10 million cores in an
# hour need at that CPU cost per core.
#
# Environment: CORES, JOBS (default: nproc), COREUNWIND and COREUNWIND_BEAM
# (default: built from the checkout).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
CORES=${CORES:-1000}
JOBS=${JOBS:-$(nproc)}
WORK=${1:-$(mktemp -d /tmp/coreunwind-beam-bench.XXXXXX)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
command -v /usr/bin/time >/dev/null || { echo "beam.sh: /usr/bin/time is needed" >&2; exit 1; }

if [ -z "${COREUNWIND:-}" ]; then
	COREUNWIND=$WORK/coreunwind
	(cd "$ROOT" && CGO_ENABLED=0 go build -o "$COREUNWIND" ./cmd/coreunwind)
fi
if [ -z "${COREUNWIND_BEAM:-}" ]; then
	COREUNWIND_BEAM=$WORK/coreunwind-beam
	(cd "$ROOT/beam" && go build -o "$COREUNWIND_BEAM" ./cmd/coreunwind-beam)
fi
CORES=$CORES sh "$HERE/triage-cores.sh" "$WORK"
n=$(find "$WORK/cores" -name 'core.*' | wc -l)
echo "cores: $n in $WORK/cores"

now_ns() { date +%s%N; }

# timed NAME CMD...: runs CMD twice, the second timed; sets ms, cpu, rss.
timed() {
	name=$1
	shift
	"$@" >/dev/null 2>&1 || true
	t0=$(now_ns)
	/usr/bin/time -f "%M %U %S" -o "$WORK/$name.time" "$@" >/dev/null 2>"$WORK/$name.err" || true
	t1=$(now_ns)
	ms=$(((t1 - t0) / 1000000))
	rss=$(tail -1 "$WORK/$name.time" | cut -d' ' -f1)
	cpu=$(tail -1 "$WORK/$name.time" | awk '{print $2 + $3}')
}
common="--no-cache --binaries $WORK/bin --format json"
timed triage "$COREUNWIND" triage -j "$JOBS" $common -o "$WORK/triage.json" "$WORK/cores"
tr_ms=$ms tr_cpu=$cpu tr_rss=$rss
timed beam "$COREUNWIND_BEAM" $common -o "$WORK/beam.json" "$WORK/cores"
bm_ms=$ms bm_cpu=$cpu bm_rss=$rss
# The pipeline's fixed cost: the same run on a directory without cores
# (job submission, prism's stages, worker start).
mkdir -p "$WORK/empty"
timed empty "$COREUNWIND_BEAM" $common -o "$WORK/empty.json" "$WORK/empty"
em_ms=$ms em_cpu=$cpu
if cmp -s "$WORK/triage.json" "$WORK/beam.json"; then
	same="the same bytes"
else
	same="DIFFERENT (see $WORK/triage.json, $WORK/beam.json)"
fi

awk -v n="$n" -v j="$JOBS" -v tm="$tr_ms" -v tc="$tr_cpu" -v tr="$tr_rss" -v bm="$bm_ms" -v bc="$bm_cpu" -v br="$bm_rss" -v em="$em_ms" -v ec="$em_cpu" -v same="$same" 'BEGIN {
	printf "%-36s %8s %10s %14s %12s\n", "runner", "cores", "cores/s", "CPU ms/core", "peak RSS"
	printf "%-36s %8d %10.1f %14.3f %9.1f MiB\n", "coreunwind triage -j " j, n, n / (tm / 1000), tc * 1000 / n, tr / 1024
	printf "%-36s %8d %10.1f %14.3f %9.1f MiB\n", "coreunwind-beam (embedded prism)", n, n / (bm / 1000), bc * 1000 / n, br / 1024
	printf "%-36s %8d %10s %14s   (fixed: %d ms, %.2f CPU s)\n", "coreunwind-beam, no cores", 0, "-", "-", em, ec
	mc = (bc - ec) / n
	printf "pipeline per core without its fixed cost: %.3f CPU ms, %.1f cores/s; overhead beside triage: %.3f CPU ms/core (%.0f%%)\n", mc * 1000, n / ((bm - em) / 1000), mc * 1000 - tc * 1000 / n, (mc / (tc / n) - 1) * 100
	printf "outputs: %s\n", same
	printf "10M cores in one hour at %.3f CPU ms/core: %.2f CPU-hours, %d one-CPU workers at full use\n", mc * 1000, 1e7 * mc / 3600, int(1e7 * mc / 3600) + 1
}'

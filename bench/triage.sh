#!/bin/sh
# triage.sh [WORKDIR]: triage throughput on an archive of many real cores.
#
# Builds, with triage-cores.sh, three small C programs with distinct bugs (null dereference,
# assert, divide by zero, double free; each from two callers), crashes them
# until there are $CORES cores (default 1000; PIE, so every core has its
# own layout), then measures
#   coreunwind triage -j $JOBS   (all cores, one process, symbolized
#                                 signatures of the crashing thread;
#                                 cold with --no-cache, then warm: a
#                                 second batch with the symbol cache
#                                 the first one filled)
#   eu-stack --core=CORE -e EXE  (once per core, $JOBS at a time, as a
#                                 script would run it)
# and prints cores per second, peak RSS (/usr/bin/time -f %M) and the
# ratio. The target is 20x eu-stack's throughput. RUNS (default 5)
# rounds, each a cold triage, a warm one and eu-stack on every core;
# medians.
#
# Environment: CORES (default 1000), JOBS (default: nproc), COREUNWIND
# (default: build ./cmd/coreunwind), EU_SAMPLE (run eu-stack on only the
# first N cores and report its rate from those; default: all).
# Disk: cores of single-threaded small programs are a few hundred KiB
# each on disk (the kernel leaves holes for untouched pages).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
CORES=${CORES:-1000}
JOBS=${JOBS:-$(nproc)}
WORK=${1:-$(mktemp -d /tmp/coreunwind-triage-bench.XXXXXX)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

for tool in gcc eu-stack /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "triage.sh: $tool is needed" >&2; exit 1; }
done

# triage-cores.sh checks core_pattern first. TRIAGE_CORES_SCRIPT: another
# maker of the archive in the same layout, printing its programs' names
# (bigdebug-triage-cores.sh: programs with big debug information).
PROGRAMS="alpha beta gamma"
if [ -n "${TRIAGE_CORES_SCRIPT:-}" ]; then
	PROGRAMS=$(CORES=$CORES sh "$TRIAGE_CORES_SCRIPT" "$WORK")
else
	CORES=$CORES sh "$HERE/triage-cores.sh" "$WORK"
fi
n=$(find "$WORK/cores" -name 'core.*' | wc -l)
echo "cores: $n in $WORK/cores ($(du -sh "$WORK/cores" | cut -f1) on disk)"

if [ -z "${COREUNWIND:-}" ]; then
	COREUNWIND=$WORK/coreunwind
	(cd "$ROOT" && CGO_ENABLED=0 go build -o "$COREUNWIND" ./cmd/coreunwind)
fi

# now_ns: a clock for elapsed times (date +%s%N is GNU; fine on Debian).
now_ns() { date +%s%N; }

# triage_run FLAGS...: one timed triage of every core; sets cu_ms, cu_rss,
# cu_cpu and buckets. The CPU time is perf stat's task-clock where perf
# works (/usr/bin/time counts in 10 ms steps, 7% of a cold run), else
# /usr/bin/time's user + system.
use_perf=no
if command -v perf >/dev/null 2>&1 && perf stat -x, -e task-clock -o /dev/null true >/dev/null 2>&1; then
	use_perf=yes
fi
triage_run() {
	t0=$(now_ns)
	if [ $use_perf = yes ]; then
		perf stat -x, -e task-clock -o "$WORK/coreunwind.perf" /usr/bin/time -f "%M %U %S" -o "$WORK/coreunwind.rss" \
			"$COREUNWIND" triage "$@" -j "$JOBS" --binaries "$WORK/bin" --format json -o "$WORK/triage.json" "$WORK/cores" || true
	else
		/usr/bin/time -f "%M %U %S" -o "$WORK/coreunwind.rss" \
			"$COREUNWIND" triage "$@" -j "$JOBS" --binaries "$WORK/bin" --format json -o "$WORK/triage.json" "$WORK/cores" || true
	fi
	t1=$(now_ns)
	cu_ms=$(((t1 - t0) / 1000000))
	# (tail -1: time prints a line first when the command exits non-zero.)
	cu_rss=$(tail -1 "$WORK/coreunwind.rss" | cut -d' ' -f1)
	if [ $use_perf = yes ]; then
		cu_cpu=$(awk -F, '/task-clock/ { print $1 / 1000 }' "$WORK/coreunwind.perf")
	else
		cu_cpu=$(tail -1 "$WORK/coreunwind.rss" | awk '{print $2 + $3}')
	fi
	buckets=$(grep -c '"id":' "$WORK/triage.json" || true)
}

# eu_run: one eu-stack per core of list.eu, JOBS at a time; sets eu_ms,
# eu_cpu (seconds) and eu_rss. /usr/bin/time around xargs reports the
# CPU time of all the eu-stack processes together and the peak RSS of the
# largest one (rusage of waited-for descendants). No shell per core: one
# xargs per program (the cores are named by it).
eu_run() {
	t0=$(now_ns)
	/usr/bin/time -f "%M %U %S" -o "$WORK/eu-stack.rss" sh -c '
		for p in $4; do
			grep "/core\.$p\." "$1" | xargs -P "$2" -I{} eu-stack --core={} -e "$3/$p" >/dev/null 2>&1 || true
		done' sh "$WORK/list.eu" "$JOBS" "$WORK/bin" "$PROGRAMS"
	t1=$(now_ns)
	eu_ms=$(((t1 - t0) / 1000000))
	eu_rss=$(tail -1 "$WORK/eu-stack.rss" | cut -d' ' -f1)
	eu_cpu=$(tail -1 "$WORK/eu-stack.rss" | awk '{print $2 + $3}')
}

# median FILE FIELD: the median of a column of FILE.
median() {
	cut -d' ' -f"$2" "$1" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

find "$WORK/cores" -name 'core.*' | sort >"$WORK/list"
if [ -n "${EU_SAMPLE:-}" ]; then
	head -n "$EU_SAMPLE" "$WORK/list" >"$WORK/list.eu"
else
	cp "$WORK/list" "$WORK/list.eu"
fi
eu_n=$(wc -l <"$WORK/list.eu")

# Cold: no symbol cache. Warm: a triage with the cache a first one filled
# (a batch after a batch on the same binaries). Unmeasured runs first
# bring the cores into the page cache and fill the warm cache. Then RUNS
# rounds (default 5), each a cold triage, a warm one and eu-stack on
# every core, so that what slows the machine for a while (other jobs,
# the kernel reclaiming page cache) falls on all three alike: eu-stack's
# CPU a core moved between 26 and 55 ms over four runs of the same cores
# measured one after the other.
RUNS=${RUNS:-5}
triage_run --no-cache
rm -rf "$WORK/symcache"
triage_run --cache-dir "$WORK/symcache"
: >"$WORK/runs.cold"
: >"$WORK/runs.warm"
: >"$WORK/runs.eu"
round=0
while [ "$round" -lt "$RUNS" ]; do
	triage_run --no-cache
	echo "$cu_ms $cu_cpu $cu_rss" >>"$WORK/runs.cold"
	triage_run --cache-dir "$WORK/symcache"
	echo "$cu_ms $cu_cpu $cu_rss" >>"$WORK/runs.warm"
	eu_run
	echo "$eu_ms $eu_cpu $eu_rss" >>"$WORK/runs.eu"
	round=$((round + 1))
done
cold_ms=$(median "$WORK/runs.cold" 1) cold_cpu=$(median "$WORK/runs.cold" 2) cold_rss=$(median "$WORK/runs.cold" 3)
cu_ms=$(median "$WORK/runs.warm" 1) cu_cpu=$(median "$WORK/runs.warm" 2) cu_rss=$(median "$WORK/runs.warm" 3)
eu_ms=$(median "$WORK/runs.eu" 1) eu_cpu=$(median "$WORK/runs.eu" 2) eu_rss=$(median "$WORK/runs.eu" 3)

# Wall-clock rates depend on what else the machine runs; CPU seconds
# (user + system) per core are printed beside them.
awk -v cold="$cold_ms" -v coldrss="$cold_rss" -v coldcpu="$cold_cpu" -v n="$n" -v cu="$cu_ms" -v curss="$cu_rss" -v cucpu="$cu_cpu" -v en="$eu_n" -v eu="$eu_ms" -v eurss="$eu_rss" -v eucpu="$eu_cpu" -v j="$JOBS" -v b="$buckets" 'BEGIN {
	cur = n / (cu / 1000); eur = en / (eu / 1000); coldr = n / (cold / 1000)
	printf "%-34s %8s %10s %14s %12s\n", "tool (-j " j ")", "cores", "cores/s", "CPU ms/core", "peak RSS"
	printf "%-34s %8d %10.1f %14.3f %9.1f MiB\n", "coreunwind triage, cold (" b " b.)", n, coldr, coldcpu * 1000 / n, coldrss / 1024
	printf "%-34s %8d %10.1f %14.3f %9.1f MiB\n", "coreunwind triage, warm cache", n, cur, cucpu * 1000 / n, curss / 1024
	printf "%-34s %8d %10.1f %14.3f %9.1f MiB\n", "eu-stack, one per core", en, eur, eucpu * 1000 / en, eurss / 1024
	printf "ratio cold: coreunwind is %.1fx eu-stack in cores/s, %.1fx in CPU per core (target 20x)\n", coldr / eur, (eucpu / en) / (coldcpu / n)
	printf "ratio warm: coreunwind is %.1fx eu-stack in cores/s, %.1fx in CPU per core (target 20x)\n", cur / eur, (eucpu / en) / (cucpu / n)
}'

#!/bin/sh
# run.sh [-n N] [OUTDIR]: time coreunwind against eu-stack, gdb and
# libunwind on real kernel cores and print a table.
#
# Builds coreunwind and bench/libunwind-coredump.c into OUTDIR/bin, makes
# the cores with cores.sh into OUTDIR/cores, runs every tool N times per
# case (default 7) and prints the median wall time, the peak RSS and the
# number of frames each tool printed, then the ratios against the targets
# (coreunwind full report <= 0.5x eu-stack and <= 0.05x gdb on every
# case). It reports; it does not fail when a target is missed.
#
# Environment: GO (go command), CC (C compiler), COREUNWIND_FLAGS (extra
# flags for every coreunwind run), COREUNWIND (a coreunwind binary to use
# instead of building the checkout), USE_HYPERFINE=no (time with a plain
# loop even if hyperfine is installed).
set -eu

usage() {
	echo "usage: $0 [-n RUNS] [OUTDIR]" >&2
	exit 2
}

RUNS=7
while getopts n:h opt; do
	case $opt in
	n) RUNS=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || usage
case $RUNS in
'' | *[!0-9]* | 0) usage ;;
esac

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
OUTDIR=${1:-${TMPDIR:-/tmp}/coreunwind-bench}
mkdir -p "$OUTDIR/bin" "$OUTDIR/out"
OUTDIR=$(cd "$OUTDIR" && pwd)
BIN=$OUTDIR/bin
CC=${CC:-gcc}
if [ -z "${GO:-}" ]; then
	GO=go
	command -v go >/dev/null 2>&1 || GO=/usr/local/go/bin/go
fi

say() { printf '%s\n' "$*" >&2; }

# --- build -----------------------------------------------------------------

if [ -n "${COREUNWIND:-}" ]; then
	CU=$COREUNWIND
	say "using $CU"
else
	say "building coreunwind"
	if ! (cd "$ROOT" && CGO_ENABLED=0 "$GO" build -o "$BIN/coreunwind" ./cmd/coreunwind); then
		say "run.sh: cmd/coreunwind did not build; COREUNWIND=/path/to/coreunwind times a prebuilt one"
		exit 1
	fi
	CU=$BIN/coreunwind
fi

LU=""
say "building libunwind-coredump"
if $CC -O2 -o "$BIN/libunwind-coredump" "$HERE/libunwind-coredump.c" \
	-lunwind-coredump -lunwind-generic -lunwind-x86_64 -lunwind 2>"$OUTDIR/out/libunwind-build.log"; then
	LU=$BIN/libunwind-coredump
else
	say "  libunwind-coredump did not build (apt-get install -y libunwind-dev?), see $OUTDIR/out/libunwind-build.log"
fi

say "making cores"
# CORES_SCRIPT: another maker of cores in the same layout
# (bigdebug-cores.sh: programs with big debug information).
"${CORES_SCRIPT:-$HERE/cores.sh}" "$OUTDIR/cores" >&2

# --- tools ------------------------------------------------------------------

have() { command -v "$1" >/dev/null 2>&1; }

# USE_HYPERFINE=no forces the plain loop.
use_hyperfine() { [ "${USE_HYPERFINE:-yes}" != no ] && have hyperfine; }

# The default frame limits differ (coreunwind 4096, eu-stack 256, gdb and
# libunwind none); the deep case has 5000 frames, so lift them all.
CUHELP=$("$CU" --help 2>&1 || true)
CUFLAGS=${COREUNWIND_FLAGS:-}
case $CUHELP in
*max-frames*) CUFLAGS="--max-frames 1000000 $CUFLAGS" ;;
esac
# Unwinding alone: used if the CLI has a flag that skips symbolization.
CU_UNWIND_FLAG=""
for f in unwind-only no-symbolize no-symbols; do
	case $CUHELP in
	*"-$f"*)
		CU_UNWIND_FLAG=--$f
		break
		;;
	esac
done

# The symbol cache: the full report runs cold (--no-cache), and once more
# warm from a cache of its own that a first run fills.
CU_COLD_FLAG=""
CU_WARM_FLAG=""
case $CUHELP in
*no-cache*)
	CU_COLD_FLAG=--no-cache
	CU_WARM_FLAG="--cache-dir $OUTDIR/symcache"
	rm -rf "$OUTDIR/symcache"
	;;
esac

TOOLS="coreunwind"
[ -n "$CU_WARM_FLAG" ] && TOOLS="$TOOLS coreunwind-warm"
[ -n "$CU_UNWIND_FLAG" ] && TOOLS="$TOOLS coreunwind-unwind"
if have eu-stack; then TOOLS="$TOOLS eu-stack eu-stack-names"; else say "eu-stack missing (apt-get install -y elfutils)"; fi
if have gdb; then TOOLS="$TOOLS gdb"; else say "gdb missing"; fi
# eu-addr2line symbolizes (names, lines, inlined calls) the pcs eu-stack
# found, from the same core: what a symbolizer alone costs on these debug
# files, without the unwinding.
if have eu-addr2line && have eu-stack; then TOOLS="$TOOLS eu-addr2line"; fi
[ -n "$LU" ] && TOOLS="$TOOLS libunwind"

# command TOOL CORE EXE: the command line (for sh -c) a tool is timed with.
command_for() {
	tool=$1
	core=$2
	exe=$3
	case $tool in
	coreunwind) echo "$CU --format json $CUFLAGS $CU_COLD_FLAG $core $exe" ;;
	coreunwind-warm) echo "$CU --format json $CUFLAGS $CU_WARM_FLAG $core $exe" ;;
	# Like libunwind-coredump, which prints every IP: one line a frame
	# (pc and module), none folded.
	coreunwind-unwind) echo "$CU --format text --no-fold $CUFLAGS $CU_UNWIND_FLAG $core $exe" ;;
	eu-stack) echo "eu-stack --core=$core -e $exe -i -s -n 0" ;;
	eu-stack-names) echo "eu-stack --core=$core -e $exe -n 0" ;;
	gdb) echo "gdb -batch -nx -ex 'thread apply all bt' $exe $core" ;;
	eu-addr2line) echo "eu-addr2line --core=$core -e $exe -f -i -C <$ADDRS" ;;
	libunwind) echo "$LU $core" ;;
	esac
}

# count_frames TOOL FILE: frames (including inlined ones) in a tool's output.
count_frames() {
	case $1 in
	coreunwind | coreunwind-warm) grep -c '"pc":' "$2" || true ;;
	coreunwind-unwind | eu-stack* | gdb) grep -c '^#' "$2" || true ;;
	libunwind) grep -c '^  #' "$2" || true ;;
	# A function line and a file:line line per frame.
	eu-addr2line) awk 'END { print int(NR / 2) }' "$2" ;;
	esac
}

now_ns() { date +%s%N; }

# json_num KEY FILE: the first number stored under KEY in hyperfine's JSON.
json_num() {
	sed -n "s/^ *\"$1\": *\([0-9.eE+-]*\),*\$/\1/p" "$2" | head -n 1
}

# time_hyperfine CMD: hyperfine's wall time over RUNS runs, after one
# warmup run, printed as "MEDIAN MIN CPU" in milliseconds (CPU = user +
# system, mean).
time_hyperfine() {
	json=$OUTDIR/out/hyperfine.json
	if ! hyperfine --shell=none --style none --ignore-failure --warmup 1 --runs "$RUNS" \
		--export-json "$json" "$1" >/dev/null 2>&1; then
		echo "- - -"
		return
	fi
	echo "$(json_num median "$json") $(json_num min "$json") $(json_num user "$json") $(json_num system "$json")" |
		awk '{ printf "%.1f %.1f %.1f\n", $1 * 1000, $2 * 1000, ($3 + $4) * 1000 }'
}

# time_rounds CASE: the wall and CPU time of every tool of CASE (the
# "TOOL<tab>CMD" lines of $OUTDIR/out/CASE.cmds), in RUNS rounds that run
# each tool once in turn, after one warmup run each; prints per tool
# "TOOL MEDIAN MIN CPU" in milliseconds (CPU: perf stat's task-clock,
# median). Rounds, not one tool's runs after another's: what moves the
# machine's speed for a while (other jobs, the kernel reclaiming pages)
# then falls on every tool alike, and eu-stack's CPU on one core moved by
# up to 30% between blocks of runs.
time_rounds() {
	cmds=$OUTDIR/out/$1.cmds
	samples=$OUTDIR/out/$1.samples
	stat=$OUTDIR/out/perf-stat.txt
	use_perf=no
	if have perf && perf stat -x, -e task-clock -o "$stat" true >/dev/null 2>&1; then use_perf=yes; fi
	: >"$samples"
	round=0
	while [ "$round" -le "$RUNS" ]; do # round 0: the warmup runs
		while IFS="$(printf '\t')" read -r tool cmd; do
			cpu=-
			t0=$(now_ns)
			if [ $use_perf = yes ]; then
				perf stat -x, -e task-clock -o "$stat" sh -c "exec $cmd" >/dev/null 2>&1 </dev/null || true
				t1=$(now_ns)
				cpu=$(awk -F, '/task-clock/ { print $1 }' "$stat")
			else
				sh -c "exec $cmd" >/dev/null 2>&1 </dev/null || true
				t1=$(now_ns)
			fi
			if [ "$round" -gt 0 ]; then echo "$tool $(((t1 - t0) / 1000)) ${cpu:--}" >>"$samples"; fi
		done <"$cmds"
		round=$((round + 1))
	done
	cut -f1 "$cmds" | while read -r tool; do
		wall=$(awk -v t="$tool" '$1 == t { print $2 / 1000 }' "$samples" | sort -g)
		cpu=$(awk -v t="$tool" '$1 == t && $3 != "-" { print $3 }' "$samples" | median)
		echo "$tool $(echo "$wall" | median) $(echo "$wall" | head -n 1) ${cpu:--}" |
			awk '{ printf "%s %.1f %.1f %s\n", $1, $2, $3, $4 == "-" ? "-" : sprintf("%.1f", $4) }'
	done
}

# median: the median of the numbers on stdin, one a line (nothing for none).
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# peak_rss_mb CMD OUT: one run under /usr/bin/time, stdout kept in OUT;
# prints "RSS_MB EXIT".
peak_rss_mb() {
	cmd=$1
	out=$2
	if [ -x /usr/bin/time ]; then
		st=0
		/usr/bin/time -f %M -o "$OUTDIR/out/time.txt" sh -c "exec $cmd" >"$out" 2>/dev/null || st=$?
		# /usr/bin/time writes "Command exited with non-zero status N" first.
		kb=$(tail -n 1 "$OUTDIR/out/time.txt")
		echo "$kb $st" | awk '{ printf "%.1f %d\n", $1 / 1024, $2 }'
	else
		st=0
		sh -c "$cmd" >"$out" 2>/dev/null || st=$?
		echo "- $st"
	fi
}

# --- measure ----------------------------------------------------------------

if use_hyperfine; then
	TIMER="hyperfine (1 warmup, $RUNS runs)"
elif have perf && perf stat -x, -e task-clock true >/dev/null 2>&1; then
	TIMER="date +%s%N, $RUNS rounds of every tool in turn (1 warmup round), cpu ms: median of perf stat task-clock"
else
	TIMER="date +%s%N, $RUNS rounds of every tool in turn (1 warmup round)"
fi
RESULTS=$OUTDIR/results.tsv
printf 'case\ttool\tmedian_ms\tmin_ms\tcpu_ms\tpeak_rss_mb\tframes\texit\n' >"$RESULTS"

for dir in "$OUTDIR"/cores/*/; do
	case=$(basename "$dir")
	core=$dir/core
	if [ ! -f "$core" ] || [ ! -f "$dir/exe" ]; then
		continue
	fi
	exe=$(cat "$dir/exe")
	ADDRS=$OUTDIR/out/$case.addrs
	eu-stack --core="$core" -e "$exe" -n 0 2>/dev/null | awk '/^#/ { print $2 }' >"$ADDRS" || true
	: >"$OUTDIR/out/$case.cmds"
	: >"$OUTDIR/out/$case.rows"
	for tool in $TOOLS; do
		cmd=$(command_for "$tool" "$core" "$exe")
		say "  $case / $tool"
		out=$OUTDIR/out/$case.$tool.txt
		# The warm run's cache is filled first, by a run not measured.
		[ "$tool" = coreunwind-warm ] && { sh -c "$cmd" >/dev/null 2>&1 || true; }
		res=$(peak_rss_mb "$cmd" "$out")
		rss=${res% *}
		st=${res#* }
		frames=$(count_frames "$tool" "$out")
		printf '%s\t%s\n' "$tool" "$cmd" >>"$OUTDIR/out/$case.cmds"
		printf '%s %s %s %s\n' "$tool" "$rss" "$frames" "$st" >>"$OUTDIR/out/$case.rows"
	done
	if use_hyperfine; then
		while IFS="$(printf '\t')" read -r tool cmd; do
			echo "$tool $(time_hyperfine "$cmd")"
		done <"$OUTDIR/out/$case.cmds" >"$OUTDIR/out/$case.times"
	else
		say "  $case: $RUNS rounds of every tool"
		time_rounds "$case" >"$OUTDIR/out/$case.times"
	fi
	while read -r tool rss frames st; do
		times=$(awk -v t="$tool" '$1 == t { print $2 "\t" $3 "\t" $4 }' "$OUTDIR/out/$case.times")
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$case" "$tool" "$times" "$rss" "$frames" "$st" >>"$RESULTS"
	done <"$OUTDIR/out/$case.rows"
done

# --- process start alone ----------------------------------------------------
# What a tool costs before it reads a core: `coreunwind --version` (the Go
# runtime and every package's init), libunwind-coredump without arguments
# (the dynamic loader and libunwind's libraries) and an empty Go program
# (the Go runtime alone, the floor of any Go tool). The unwind-only runs
# minus their tool's start are the unwinding itself.
if [ -n "$CU_UNWIND_FLAG" ] && [ -n "$LU" ]; then
	mkdir -p "$BIN/gostart"
	printf 'package main\n\nfunc main() {}\n' >"$BIN/gostart/main.go"
	if (cd "$BIN/gostart" && CGO_ENABLED=0 "$GO" build -o "$BIN/gostart/gostart" main.go) 2>"$OUTDIR/out/gostart-build.log"; then
		printf 'coreunwind\t%s\nlibunwind\t%s\ngo\t%s\n' "$CU --version" "$LU" "$BIN/gostart/gostart" >"$OUTDIR/out/start.cmds"
		say "  start: $RUNS rounds"
		if use_hyperfine; then
			while IFS="$(printf '\t')" read -r tool cmd; do
				echo "$tool $(time_hyperfine "$cmd")"
			done <"$OUTDIR/out/start.cmds" >"$OUTDIR/out/start.times"
		else
			time_rounds start >"$OUTDIR/out/start.times"
		fi
		while read -r tool median min cpu; do
			printf 'start\t%s\t%s\t%s\t%s\t-\t-\t-\n' "$tool" "$median" "$min" "$cpu" >>"$RESULTS"
		done <"$OUTDIR/out/start.times"
	else
		say "  an empty Go program did not build, see $OUTDIR/out/gostart-build.log"
	fi
fi

# --- report -----------------------------------------------------------------

echo "coreunwind benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(uname -sr)"
echo "timer: $TIMER; coreunwind flags: --format json $CUFLAGS"
load=$(cut -d ' ' -f 1 /proc/loadavg)
echo "load average at the end: $(cut -d ' ' -f 1-3 /proc/loadavg)"
if awk -v l="$load" -v n="$(nproc)" 'BEGIN { exit !(l > n) }'; then
	echo "WARNING: the machine was busy (load > CPUs): wall times are unreliable, read min ms and cpu ms"
fi
if [ -z "$CU_UNWIND_FLAG" ]; then
	echo "note: coreunwind has no unwind-only flag yet; 'unwind alone' compares the full report with libunwind"
fi
echo
awk -F '\t' 'NR == 1 { printf "%-10s %-18s %10s %8s %8s %12s %8s %5s\n", "case", "tool", "median ms", "min ms", "cpu ms", "peak RSS MB", "frames", "exit"; next }
	{ printf "%-10s %-18s %10s %8s %8s %12s %8s %5s\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$RESULTS"
echo
echo "targets on every case: coreunwind full report (cold, --no-cache) <= 0.5x eu-stack -s -i and <= 0.05x gdb;"
echo "warm (second run, symbol cache filled) <= 1.0x eu-stack with names only; peak RSS (cold) <= eu-stack -s -i's;"
echo "--unwind-only <= 1.0x libunwind's remote unwinder"
echo
awk -F '\t' -v unwind_tool="$([ -n "$CU_UNWIND_FLAG" ] && echo coreunwind-unwind || echo coreunwind)" '
	NR == 1 { next }
	{
		med[$1, $2] = $3; min[$1, $2] = $4; cpu[$1, $2] = $5; rss[$1, $2] = $6
		if ($1 != "start" && !($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
	}
	function ratio(a, b) { return (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && a > 0 && b > 0) ? a / b : -1 }
	function fmt(r) { return r < 0 ? "-" : sprintf("%.3fx", r) }
	function verdict(r, target) { return r < 0 ? "n/a" : target == "" ? "info" : (r <= target ? "PASS" : "MISS") }
	function row(c, what, a, b, target,    r, rc) {
		r = ratio(med[c, a], med[c, b])
		rc = ratio(cpu[c, a], cpu[c, b])
		printf "%-10s %-34s %9s %9s %9s  %s%s\n", c, what, fmt(r), fmt(ratio(min[c, a], min[c, b])),
			fmt(rc), target == "" ? "info" : verdict(r, target) " / " verdict(rc, target),
			target == "" ? "" : sprintf(" (target <= %sx)", target)
	}
	END {
		printf "%-10s %-34s %9s %9s %9s  %s\n", "case", "ratio", "median", "min", "cpu", "verdict (median / cpu)"
		for (i = 1; i <= n; i++) {
			c = order[i]
			row(c, "coreunwind / eu-stack", "coreunwind", "eu-stack", "0.5")
			row(c, "coreunwind / gdb", "coreunwind", "gdb", "0.05")
			if ((c, "eu-addr2line") in med)
				row(c, "coreunwind / eu-addr2line", "coreunwind", "eu-addr2line", "")
			if ((c, "coreunwind-warm") in med)
				row(c, "coreunwind-warm / eu-stack-names", "coreunwind-warm", "eu-stack-names", "1.0")
			r = ratio(rss[c, "coreunwind"], rss[c, "eu-stack"])
			printf "%-10s %-34s %9s %9s %9s  %s\n", c, "peak RSS coreunwind / eu-stack", fmt(r), "", "",
				r < 0 ? "n/a" : (r <= 1 ? "PASS" : "MISS") " (target <= 1.0x)"
			row(c, unwind_tool " / libunwind", unwind_tool, "libunwind", unwind_tool == "coreunwind-unwind" ? "1.0" : "")
			if (("start", "coreunwind") in cpu && ("start", "libunwind") in cpu) {
				r = ratio(cpu[c, unwind_tool] - cpu["start", "coreunwind"], cpu[c, "libunwind"] - cpu["start", "libunwind"])
				printf "%-10s %-34s %9s %9s %9s  %s\n", c, "  the same, less each tool start", "", "", fmt(r), "info"
			}
		}
		if (("start", "coreunwind") in cpu) {
			print ""
			printf "process start alone, cpu ms: coreunwind --version %s, libunwind-coredump (usage) %s, empty Go program %s\n",
				cpu["start", "coreunwind"], cpu["start", "libunwind"], cpu["start", "go"]
		}
	}' "$RESULTS"
echo
echo "raw results: $RESULTS; tool outputs: $OUTDIR/out/"

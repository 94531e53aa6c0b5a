#!/bin/bash
# live.sh [-n RUNS] [-t THREADS] [OUTDIR]: how long `coreunwind -p` and
# `eu-stack -p` stop a running process, measured by the process itself,
# and how long each takes in all.
#
# Runs cases/stopwatch.c with THREADS threads (default 20): all but one
# parked in pthread_cond_wait, one reading the clock in a tight loop and
# keeping the largest gap between two reads. Before each tool run the
# gap is reset; after it, the largest gap is the stop as the process saw
# it. A baseline (sleep for the same time, no tool) shows the gaps the
# scheduler makes by itself. Prints the median and the worst of RUNS runs
# (default 15) per tool, then the targets: coreunwind's stop under 1 ms
# and under a tenth of eu-stack's, its whole run no longer than
# eu-stack's. It reports; it does not fail when a target is missed.
#
# The two tools' defaults do not print the same: eu-stack -p names
# functions from the symbol tables only, coreunwind also reads the
# separate debug files (libc6-dbg's, where installed) for lines, inlined
# calls and tail calls. Two more rows compare like with like: coreunwind
# --no-default-debug-dirs (symbol tables, as eu-stack -p) and eu-stack
# -i -s (debug files for inlined calls and lines, as coreunwind).
#
# Needs: go, gcc, eu-stack (elfutils); ptrace rights over one's own
# processes (Yama ptrace_scope 0, or root). Environment: GO, CC,
# COREUNWIND (a coreunwind binary instead of building the checkout),
# COREUNWIND_FLAGS (extra flags for coreunwind).
set -eu

RUNS=15
THREADS=20
while getopts n:t:h opt; do
	case $opt in
	n) RUNS=$OPTARG ;;
	t) THREADS=$OPTARG ;;
	*)
		echo "usage: $0 [-n RUNS] [-t THREADS] [OUTDIR]" >&2
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))
OUT=${1:-/tmp/coreunwind-bench-live}
HERE=$(cd "$(dirname "$0")" && pwd)
GO=${GO:-go}
CC=${CC:-gcc}
mkdir -p "$OUT/bin"

if [ -z "${COREUNWIND:-}" ]; then
	(cd "$HERE/.." && "$GO" build -o "$OUT/bin/coreunwind" ./cmd/coreunwind)
	COREUNWIND=$OUT/bin/coreunwind
fi
"$CC" -O2 -g -pthread -o "$OUT/bin/stopwatch" "$HERE/cases/stopwatch.c"
EU=$(command -v eu-stack || true)

coproc SW { "$OUT/bin/stopwatch" "$THREADS"; }
trap 'kill "$SW_PID" 2>/dev/null || true' EXIT
read -r _ PID <&"${SW[0]}"

# measure CMD...: runs CMD against the process and prints "GAP_NS WALL_NS".
measure() {
	echo reset >&"${SW[1]}"
	read -r _ <&"${SW[0]}"
	local start end gap
	start=$(date +%s%N)
	"$@" >/dev/null 2>&1 || true
	end=$(date +%s%N)
	echo gap >&"${SW[1]}"
	read -r gap <&"${SW[0]}"
	echo "$gap $((end - start))"
}

# One warm-up run each: the symbol cache, the page cache.
# shellcheck disable=SC2086
"$COREUNWIND" ${COREUNWIND_FLAGS:-} -p "$PID" >/dev/null 2>&1 || true
[ -n "$EU" ] && "$EU" -i -s -p "$PID" >/dev/null 2>&1 || true

declare -A GAPS WALLS
for _ in $(seq "$RUNS"); do
	# shellcheck disable=SC2086
	read -r g w < <(measure "$COREUNWIND" ${COREUNWIND_FLAGS:-} -p "$PID")
	GAPS[coreunwind]+="$g " WALLS[coreunwind]+="$w "
	# shellcheck disable=SC2086
	read -r g w < <(measure "$COREUNWIND" ${COREUNWIND_FLAGS:-} --no-default-debug-dirs -p "$PID")
	GAPS[coreunwind-symtab]+="$g " WALLS[coreunwind-symtab]+="$w "
	if [ -n "$EU" ]; then
		read -r g w < <(measure "$EU" -p "$PID")
		GAPS[eu-stack]+="$g " WALLS[eu-stack]+="$w "
		read -r g w < <(measure "$EU" -i -s -p "$PID")
		GAPS[eu-stack-is]+="$g " WALLS[eu-stack-is]+="$w "
	fi
	read -r g w < <(measure sleep 0.02)
	GAPS[baseline]+="$g " WALLS[baseline]+="$w "
done

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
worst() { tr ' ' '\n' | grep . | sort -n | tail -1; }
us() { awk -v n="$1" 'BEGIN {printf "%.1f", n / 1000}'; }

printf '%d threads, %d runs (stop: largest gap the process saw, µs; wall: whole run, ms)\n' "$THREADS" "$RUNS"
printf '%-18s %12s %12s %12s\n' tool "stop median" "stop worst" "wall median"
for tool in coreunwind coreunwind-symtab eu-stack eu-stack-is baseline; do
	[ -n "${GAPS[$tool]:-}" ] || continue
	gm=$(echo "${GAPS[$tool]}" | median)
	gw=$(echo "${GAPS[$tool]}" | worst)
	wm=$(echo "${WALLS[$tool]}" | median)
	printf '%-18s %12s %12s %12s\n' "$tool" "$(us "$gm")" "$(us "$gw")" "$(awk -v n="$wm" 'BEGIN {printf "%.1f", n / 1e6}')"
	eval "GM_${tool//-/_}=$gm WM_${tool//-/_}=$wm"
done
echo
verdict() { if [ "$1" = 1 ]; then echo met; else echo MISSED; fi; }
echo "target: coreunwind's stop < 1 ms: $(verdict "$(awk -v g="$GM_coreunwind" 'BEGIN {print (g < 1000000)}')")"
if [ -n "$EU" ]; then
	echo "target: coreunwind's stop < eu-stack's / 10: $(verdict "$(awk -v c="$GM_coreunwind" -v e="$GM_eu_stack" 'BEGIN {print (c * 10 < e)}')")"
	echo "target: coreunwind's wall time <= eu-stack's: $(verdict "$(awk -v c="$WM_coreunwind" -v e="$WM_eu_stack" 'BEGIN {print (c <= e)}')")"
	echo "like with like: coreunwind --no-default-debug-dirs's wall time <= eu-stack's: $(verdict "$(awk -v c="$WM_coreunwind_symtab" -v e="$WM_eu_stack" 'BEGIN {print (c <= e)}')")"
	echo "like with like: coreunwind's wall time <= eu-stack -i -s's: $(verdict "$(awk -v c="$WM_coreunwind" -v e="$WM_eu_stack_is" 'BEGIN {print (c <= e)}')")"
fi

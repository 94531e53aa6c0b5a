#!/bin/sh
# minidump.sh [-n RUNS] [OUTDIR]: coreunwind against Breakpad's
# minidump_stackwalk on the same minidumps, with the same symbols.
#
# Makes the minidumps the way the tests do: e2e/testdata/progs/mdcrash.c
# (built with 3 and with 63 waiting threads) copies its /proc/self files
# and crashes, and Breakpad's core2md converts its kernel core. Breakpad's
# tools come from npm's minidump package (0.26.0) installed into OUTDIR;
# core2md is built from its source with internal/testenv/breakpad-lss.
# minidump_stackwalk reads .sym files that dump_syms writes from the same
# binaries coreunwind reads (STACK CFI from .eh_frame, names, lines).
#
# Prints one line per case: each tool's median wall time over RUNS runs,
# its mean CPU time (user + system: steadier on a busy machine), and the
# ratios (the goal: coreunwind at most a fifth of
# minidump_stackwalk's time). Needs go, gcc, g++, npm, /usr/bin/time; core_pattern a
# plain file name such as "core".
set -eu

RUNS=7
if [ "${1:-}" = "-n" ]; then
	RUNS=$2
	shift 2
fi
OUTDIR=${1:-/tmp/coreunwind-bench-minidump}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
mkdir -p "$OUTDIR/bin"
OUTDIR=$(cd "$OUTDIR" && pwd)

pattern=$(cat /proc/sys/kernel/core_pattern)
case $pattern in
"|"* | */*)
	echo "minidump.sh: core_pattern is '$pattern'; need a plain file name such as 'core'" >&2
	exit 1
	;;
esac

echo "minidump.sh: building coreunwind" >&2
(cd "$ROOT" && ${GO:-go} build -o "$OUTDIR/bin/coreunwind" ./cmd/coreunwind)

NPM=$OUTDIR/npm/node_modules/minidump
if [ ! -x "$NPM/bin/linux-x64/minidump_stackwalk" ]; then
	echo "minidump.sh: npm install minidump@0.26.0" >&2
	npm install --no-save --ignore-scripts --no-audit --no-fund --prefix "$OUTDIR/npm" minidump@0.26.0 >&2
fi
BP=$NPM/bin/linux-x64
SRC=$NPM/deps/breakpad/src
if [ ! -x "$OUTDIR/bin/core2md" ]; then
	echo "minidump.sh: building core2md" >&2
	g++ -O1 -w -I "$ROOT/internal/testenv/breakpad-lss" -I "$SRC" -o "$OUTDIR/bin/core2md" \
		"$SRC/tools/linux/core2md/core2md.cc" \
		"$SRC/client/linux/minidump_writer/linux_core_dumper.cc" \
		"$SRC/client/linux/minidump_writer/linux_dumper.cc" \
		"$SRC/client/linux/minidump_writer/linux_ptrace_dumper.cc" \
		"$SRC/client/linux/minidump_writer/minidump_writer.cc" \
		"$SRC/client/linux/minidump_writer/pe_file.cc" \
		"$SRC/client/linux/dump_writer_common/thread_info.cc" \
		"$SRC/client/linux/dump_writer_common/ucontext_reader.cc" \
		"$SRC/client/minidump_file_writer.cc" \
		"$SRC/common/linux/elf_core_dump.cc" "$SRC/common/linux/elfutils.cc" \
		"$SRC/common/linux/file_id.cc" "$SRC/common/linux/linux_libc_support.cc" \
		"$SRC/common/linux/memory_mapped_file.cc" "$SRC/common/linux/safe_readlink.cc" \
		"$SRC/common/string_conversion.cc" "$SRC/common/convert_UTF.cc" "$SRC/common/path_helper.cc"
fi

# mkcase NAME NTHREADS: build mdcrash with NTHREADS waiting threads, crash
# it, convert its core, write the symbol store of its modules.
mkcase() {
	name=$1
	dir=$OUTDIR/$name
	rm -rf "$dir"
	mkdir -p "$dir/proc" "$dir/syms"
	gcc -g -O1 -pthread -DNTHREADS_OVERRIDE="$2" -o "$dir/exe" "$ROOT/e2e/testdata/progs/mdcrash.c"
	(cd "$dir" && sh -c 'ulimit -c unlimited; MDCRASH_PROC="$1/proc" exec ./exe' sh "$dir" >/dev/null 2>&1) || true
	[ -f "$dir/core" ] || {
		echo "minidump.sh: $name left no core" >&2
		exit 1
	}
	"$OUTDIR/bin/core2md" "$dir/core" "$dir/proc" "$dir/minidump.dmp" 2>/dev/null
	grep -o '/[^ ]*\.so[^ ]*\|'"$dir"'/exe' "$dir/proc/maps" | sort -u | while read -r f; do
		"$BP/dump_syms" "$f" >"$dir/x.sym" 2>/dev/null || continue
		set -- $(head -1 "$dir/x.sym")
		mkdir -p "$dir/syms/$5/$4"
		mv "$dir/x.sym" "$dir/syms/$5/$4/$5.sym"
	done
}

# measure CMD...: "WALL_MS CPU_MS": the median wall time and the mean CPU
# time (user + system) of RUNS runs, after a warmup.
measure() {
	"$@" >/dev/null 2>&1 || true
	i=0
	while [ $i -lt "$RUNS" ]; do
		s=$(date +%s%N)
		/usr/bin/time -f '%U %S' -o "$OUTDIR/cpu" "$@" >/dev/null 2>&1 || true
		e=$(date +%s%N)
		echo $(((e - s) / 1000)) $(awk '{printf "%d", ($1 + $2) * 1000000}' "$OUTDIR/cpu")
		i=$((i + 1))
	done | sort -n | awk '{w[NR] = $1; c += $2} END {printf "%.1f %.1f", w[int((NR + 1) / 2)] / 1000, c / NR / 1000}'
}

# Two coreunwind runs: as it runs by default (with the separate debug
# files under /usr/lib/debug: inlined calls and lines in libc, which the
# .sym files dump_syms wrote from the binaries alone lack), and with the
# same information as minidump_stackwalk's (--no-default-debug-dirs).
printf 'case\tthreads\ttool\twall_ms\tcpu_ms\twall_ratio\tcpu_ratio\n'
for c in "threads4 3" "threads64 63"; do
	set -- $c
	mkcase "$1" "$2"
	d=$OUTDIR/$1
	n=$1 threads=$(($2 + 1))
	set -- $(measure "$BP/minidump_stackwalk" "$d/minidump.dmp" "$d/syms")
	sw=$1 swc=$2
	printf '%s\t%s\tminidump_stackwalk\t%s\t%s\t1.00\t1.00\n' "$n" "$threads" "$sw" "$swc"
	for flags in "" "--no-default-debug-dirs"; do
		set -- $(measure "$OUTDIR/bin/coreunwind" $flags "$d/minidump.dmp")
		awk -v n="$n" -v t="$threads" -v tool="coreunwind${flags:+ $flags}" -v sw="$sw" -v swc="$swc" -v cu="$1" -v cuc="$2" \
			'BEGIN {printf "%s\t%s\t%s\t%s\t%s\t%.2f\t%.2f\n", n, t, tool, cu, cuc, cu / sw, (swc > 0 ? cuc / swc : 0)}'
	done
done

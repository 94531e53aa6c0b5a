#!/bin/sh
# triage-cores.sh WORKDIR: the archive the triage benches read: three
# small C programs with distinct bugs (null dereference, assert, divide
# by zero, double free; each from two callers) in WORKDIR/bin, crashed
# until WORKDIR/cores holds $CORES cores (default 1000; PIE, so every
# core has its own layout). Cores already there are kept.
set -eu
CORES=${CORES:-1000}
WORK=$1
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
case $(cat /proc/sys/kernel/core_pattern) in
"|"* | */*)
	echo "triage-cores.sh: core_pattern must be a plain file name such as 'core'" >&2
	exit 1
	;;
esac

# Three programs: the same four bugs under different names, so that the
# archive has 12 distinct crash sites (plus callers a/b for each).
mkdir -p "$WORK/bin" "$WORK/cores"
for p in alpha beta gamma; do
	cat >"$WORK/bin/$p.c.new" <<EOF
#include <assert.h>
#include <stdlib.h>
#include <string.h>
static volatile int zero;
__attribute__((noinline)) int ${p}_null(int *q) { return *q + 1; }
__attribute__((noinline)) int ${p}_check(int n) { assert(n >= 0); return n; }
__attribute__((noinline)) int ${p}_ratio(int a) { return a / zero; }
__attribute__((noinline)) void ${p}_release(char *q) { free(q); free(q); }
__attribute__((noinline)) int bug(const char *b, int x) {
	if (!strcmp(b, "null")) return ${p}_null(x > 1000 ? &x : 0) + 1;
	if (!strcmp(b, "assert")) return ${p}_check(-x - 1) + 1;
	if (!strcmp(b, "div")) return ${p}_ratio(x) + 1;
	${p}_release(malloc(16 + x % 5));
	return 1;
}
__attribute__((noinline)) int via_a(const char *b, int x) { return bug(b, x * 2) + 1; }
__attribute__((noinline)) int via_b(const char *b, int x) { int r = bug(b, x + 3); return r * 7; }
int main(int argc, char **argv) {
	if (argc < 3) return 2;
	return argv[2][0] == 'a' ? via_a(argv[1], argc) : via_b(argv[1], argc);
}
EOF
	# A second run on the same WORKDIR keeps the binaries the cores came
	# from: gcc records the working directory (DW_AT_comp_dir), so a run
	# from another directory built other build IDs, and triage then
	# found no binary for any core (signatures "alpha+0x11a2").
	if [ -x "$WORK/bin/$p" ] && cmp -s "$WORK/bin/$p.c.new" "$WORK/bin/$p.c"; then
		rm "$WORK/bin/$p.c.new"
	else
		mv "$WORK/bin/$p.c.new" "$WORK/bin/$p.c"
		gcc -g -O1 -fPIE -pie -o "$WORK/bin/$p" "$WORK/bin/$p.c"
	fi
done

have=$(find "$WORK/cores" -name 'core.*' | wc -l)
if [ "$have" -lt "$CORES" ]; then
	echo "crashing programs for $CORES cores..." >&2
	i=$have
	cd "$WORK/bin"
	while [ "$i" -lt "$CORES" ]; do
		for p in alpha beta gamma; do
			for b in null assert div dfree; do
				for c in a b; do
					[ "$i" -lt "$CORES" ] || break
					rm -f core
					sh -c "ulimit -c unlimited; exec ./$p $b $c" 2>/dev/null || true
					[ -f core ] && mv core "$WORK/cores/core.$p.$b.$c.$i"
					i=$((i + 1))
				done
			done
		done
	done
	cd "$WORK"
fi

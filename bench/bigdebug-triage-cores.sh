#!/bin/sh
# bigdebug-triage-cores.sh WORKDIR: triage.sh's archive for the programs
# of bigdebug-cores.sh (BIG_CASES picks them, as there): each program is
# built and crashed once by bigdebug-cores.sh into WORKDIR/one, linked
# into WORKDIR/bin under its own file name, and crashed again until
# WORKDIR/cores holds $CORES cores (default 200) named
# core.PROGRAM.N. Prints the program names (triage.sh's PROGRAMS).
set -eu
CORES=${CORES:-200}
WORK=$1
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$WORK/bin" "$WORK/cores"
WORK=$(cd "$WORK" && pwd)
sh "$HERE/bigdebug-cores.sh" "$WORK/one" >&2
progs=""
for d in "$WORK"/one/*/; do
	[ -f "$d/exe" ] || continue
	exe=$(cat "$d/exe")
	name=$(basename "$exe")
	ln -sf "$exe" "$WORK/bin/$name"
	progs="$progs $name"
	# How the case crashed its program: the same command again.
	printf '%s\n' "$d" >"$WORK/bin/$name.case"
done
[ -n "$progs" ] || { echo "bigdebug-triage-cores.sh: no program crashed" >&2; exit 1; }
n=$(find "$WORK/cores" -name 'core.*' | wc -l)
i=0
while [ "$n" -lt "$CORES" ]; do
	for name in $progs; do
		[ "$n" -lt "$CORES" ] || break
		d=$(cat "$WORK/bin/$name.case")
		# bigdebug-cores.sh writes DIR/core; crash the case again there.
		BIG_CASES=$(basename "$d") sh "$HERE/bigdebug-cores.sh" "$WORK/one" >/dev/null 2>&1 || true
		[ -f "$d/core" ] && mv "$d/core" "$WORK/cores/core.$name.$i"
		n=$((n + 1))
	done
	i=$((i + 1))
done
echo $progs

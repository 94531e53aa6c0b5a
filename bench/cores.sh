#!/bin/sh
# cores.sh OUTDIR: build the benchmark inputs, real kernel cores.
#
# For every case it leaves OUTDIR/<case>/core (the core the kernel wrote)
# and OUTDIR/<case>/exe (one line: the path of the crashed executable).
# Cases:
#   threads64  64 threads parked at call depths 5..40 in distinct
#              functions, main thread dereferences NULL (C, -O2 -g)
#   deep       5000 frames of recursion, then a NULL dereference (C, -O0 -g)
#   python     Debian's python3 sending itself SIGSEGV (big stripped binary,
#              many shared libraries)
#   node       node -e 'process.abort()' (many threads, huge text, V8 JIT
#              frames), only if node is installed
#
# Needs core_pattern to be a plain file name ("core"); the kernel then
# writes the core into the crashing process's working directory.
set -eu

usage() {
	echo "usage: $0 OUTDIR" >&2
	exit 2
}

[ $# -eq 1 ] || usage
OUTDIR=$1
HERE=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-gcc}

pattern=$(cat /proc/sys/kernel/core_pattern)
case $pattern in
"|"* | */*)
	echo "cores.sh: core_pattern is '$pattern'; need a plain file name such as 'core'" >&2
	exit 1
	;;
esac

mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)

# crash DIR EXE ARGS...: run EXE in DIR with core dumps enabled, expect it
# to die by a signal, and leave DIR/core and DIR/exe.
crash() {
	dir=$1
	exe=$2
	shift 2
	rm -f "$dir"/core "$dir"/core.*
	# The crash is the point: ignore the exit status, check for the core.
	# The inner shell raises the core limit and becomes the program; the
	# outer one reaps it, so the "Segmentation fault" notice lands in
	# /dev/null instead of our output.
	inner='ulimit -c unlimited; exec "$@"'
	(cd "$dir" && sh -c 'sh -c "$0" crash "$@"; exit 0' "$inner" "$exe" "$@") >/dev/null 2>&1 || true
	# core_uses_pid=1 or a pattern with %p gives core.PID; normalise.
	if [ ! -f "$dir/core" ]; then
		for f in "$dir"/core.*; do
			if [ -f "$f" ]; then
				mv "$f" "$dir/core"
				break
			fi
		done
	fi
	if [ ! -s "$dir/core" ]; then
		echo "cores.sh: no core written in $dir for $exe" >&2
		exit 1
	fi
	printf '%s\n' "$exe" >"$dir/exe"
	echo "$(basename "$dir"): $(du -h "$dir/core" | cut -f1) core of $exe"
}

# threads64
d=$OUTDIR/threads64
mkdir -p "$d"
$CC -O2 -g -pthread -o "$d/threads64" "$HERE/cases/threads64.c"
crash "$d" "$d/threads64"

# deep
d=$OUTDIR/deep
mkdir -p "$d"
$CC -O0 -g -o "$d/deep" "$HERE/cases/deep.c"
crash "$d" "$d/deep"

# python: Debian's interpreter, not a pyenv shim earlier in PATH.
if [ -x /usr/bin/python3 ]; then
	py=$(readlink -f /usr/bin/python3)
	d=$OUTDIR/python
	mkdir -p "$d"
	crash "$d" "$py" -c 'import os, signal; os.kill(os.getpid(), signal.SIGSEGV)'
else
	echo "cores.sh: /usr/bin/python3 missing, skipping the python case" >&2
fi

# node: optional.
if command -v node >/dev/null 2>&1; then
	nd=$(readlink -f "$(command -v node)")
	d=$OUTDIR/node
	mkdir -p "$d"
	crash "$d" "$nd" -e 'process.abort()'
else
	echo "cores.sh: node missing, skipping the node case" >&2
fi

#!/bin/sh
# make.sh rebuilds the small real cores shipped in this directory from the
# sources committed beside them (segv.c, abort.c, threads.c): each folder
# gets the program's binary, the core and expected.gdb.txt (gdb's "thread
# apply all bt" of that core):
#
#   segv-static/  a static C program storing through NULL (self-contained:
#                 works on any x86_64 Linux machine)
#   abort-dyn/    a dynamically linked C program calling abort()
#   threads-dyn/  a dynamically linked C program with three threads parked
#                 in different calls while the main thread crashes
#
# libs.txt lists the shared libraries each dynamic program used, with their
# build IDs, so tests can tell whether this machine's libc is the one the
# core was made with. expected.eu-stack.txt is eu-stack's view of the same
# core: gdb alone adds frames no unwinder can see (tail calls it rebuilds
# from DW_TAG_call_site), so tests judge by where the two tools agree.
# The programs are built and crashed in a neutral directory (BUILD_DIR,
# default /home/user/crashes) and copied back, so the paths the binaries
# and cores record (and the README's sample output) read like a user's,
# not like this machine's checkout.
# Needs gcc, gdb, eu-stack, readelf and core_pattern "core".
# Usage: sh testdata/cores/make.sh   (run from anywhere)
set -eu
cd "$(dirname "$0")"
here=$(pwd)
build=${BUILD_DIR:-/home/user/crashes}

if [ "$(cat /proc/sys/kernel/core_pattern)" != core ]; then
	echo "make.sh: /proc/sys/kernel/core_pattern must be 'core'" >&2
	exit 1
fi

# crash DIR BIN: runs ./BIN in DIR with cores enabled and checks the core.
crash() {
	(cd "$1" && rm -f core && sh -c 'ulimit -c unlimited; exec "$0"' "./$2" >/dev/null 2>&1) || true
	if [ ! -s "$1/core" ]; then
		echo "make.sh: $1/$2 left no core" >&2
		exit 1
	fi
	size=$(wc -c <"$1/core")
	if [ "$size" -gt 1048576 ]; then
		echo "make.sh: $1/core is $size bytes, more than 1 MB" >&2
		exit 1
	fi
	(cd "$1" && gdb -batch -nx \
		-ex 'set backtrace past-main on' -ex 'set backtrace past-entry on' \
		-ex 'set pagination off' -ex 'set width 0' -ex 'set print address on' \
		-ex 'thread apply all bt -frame-info location-and-address' \
		"./$2" core >expected.gdb.txt 2>/dev/null)
	(cd "$1" && eu-stack --core=core -e "./$2" -i -s -a >expected.eu-stack.txt 2>/dev/null) || true
}

# libs DIR BIN: records "path build-id" for each library BIN loads.
libs() {
	: >"$1/libs.txt"
	for lib in $(ldd "$1/$2" | sed -n 's|^[^/]*\(/[^ ]*\) (0x.*|\1|p'); do
		id=$(readelf -n "$lib" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
		echo "$lib $id" >>"$1/libs.txt"
	done
}

# make NAME SRC BIN FLAGS...: builds SRC into BIN under $build/NAME,
# crashes it there, and copies the program, the core and the references
# back into NAME/.
make() {
	name=$1 src=$2 bin=$3
	shift 3
	rm -rf "${build:?}/$name"
	mkdir -p "$build/$name" "$here/$name"
	cp "$here/$name/$src" "$build/$name/"
	(cd "$build/$name" && gcc "$@" -o "$bin" "$src")
	crash "$build/$name" "$bin"
	case " $* " in *" -static "*) ;; *) libs "$build/$name" "$bin" ;; esac
	for f in "$bin" core expected.gdb.txt expected.eu-stack.txt libs.txt; do
		[ -e "$build/$name/$f" ] && cp "$build/$name/$f" "$here/$name/"
	done
	rm -rf "${build:?}/$name"
}

make segv-static segv.c segv -g -O1 -static
make abort-dyn abort.c abort -g -O1
make threads-dyn threads.c threads -g -O1 -pthread

ls -l "$here"/*/core

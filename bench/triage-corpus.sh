#!/bin/sh
# triage-corpus.sh WORKDIR [full|slice]: the labelled corpus `coreunwind
# triage eval` scores bucketing on (docs/triage.md). Twelve bugs, in
# bench/corpus: nine in C (cbugs.c: NULL store, use after free caught by
# glibc, double free, assert, abort on a bad state, stack overflow, divide
# by zero, call through a bad function pointer, strlen of NULL), a C++
# uncaught exception (config.cc), a Rust panic (fleet.rs), a Go panic
# (_go/gopanic.go); each reached through several callers, in the main
# thread and in another, built -O0 and -O2, static and dynamic.
#
# full (the default): x86_64, and the C and C++ programs for aarch64 and
# s390x under qemu-user (static), with every twentieth core also truncated:
# about 480 cores. slice: what e2e/triageeval_test.go builds, x86_64 only,
# a few dozen cores covering every bug, level, link mode and thread.
#
# It writes WORKDIR/bin/<arch>-<build>/PROGRAM, WORKDIR/cores/<arch>-<build>/
# core.BUG.CALLER.THREAD and WORKDIR/labels.txt ("BUG CORE" lines, CORE
# relative to WORKDIR), then prints what to run:
#   coreunwind triage eval --labels WORKDIR/labels.txt --binaries WORKDIR/bin WORKDIR/cores
# Every executable of one program has the same name (the program is part
# of a signature's key); only the directory says which build it is.
set -eu
WORK=$1
MODE=${2:-full}
SRC=$(cd "$(dirname "$0")/corpus" && pwd)
case $(cat /proc/sys/kernel/core_pattern) in
core) ;;
*)
	echo "triage-corpus.sh: core_pattern must be 'core'" >&2
	exit 1
	;;
esac
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
rm -rf "$WORK/bin" "$WORK/cores" "$WORK/run"
mkdir -p "$WORK/bin" "$WORK/cores" "$WORK/run"
LABELS=$WORK/labels.txt
: >"$LABELS"
n=0

# bin ARCH-BUILD PROGRAM: where that build of the program goes.
bin() {
	mkdir -p "$WORK/bin/$1"
	echo "$WORK/bin/$1/$2"
}

# crash ARCH-BUILD BUG PROGRAM QEMU ENV ARGS...: run the program (under
# QEMU unless it is "-") until it dumps core, keep the core as
# cores/ARCH-BUILD/core.BUG.ARGS and label it BUG. RLIMIT_STACK is 2 MiB
# (threads' stacks follow it): a stack overflow's core stays small.
crash() {
	tag=$1 bug=$2 prog=$3 qemu=$4 env=$5
	shift 5
	run=$WORK/run/$tag.$bug.$(echo "$@" | tr ' ' .)
	rm -rf "$run"
	mkdir -p "$run/core.d"
	cp "$WORK/bin/$tag/$prog" "$run/"
	if [ "$qemu" = - ]; then
		(cd "$run" && env $env sh -c 'ulimit -c unlimited; ulimit -s 2048; exec "$0" "$@"' "./$prog" "$@") >/dev/null 2>&1 || true
		core=$run/core
	else
		# qemu writes qemu_PROG_*.core; a directory named core stops the
		# host kernel dumping qemu itself.
		rmdir "$run/core.d" && mkdir -p "$run/core"
		(cd "$run" && env $env sh -c 'ulimit -c unlimited; exec "$0" "$@"' "$qemu" -s 1M "./$prog" "$@") >/dev/null 2>&1 || true
		core=$(ls "$run"/qemu_*.core 2>/dev/null | head -1)
	fi
	if [ -z "$core" ] || [ ! -s "$core" ]; then
		echo "triage-corpus.sh: $tag/$prog $*: no core" >&2
		exit 1
	fi
	name=cores/$tag/core.$bug.$(echo "$@" | tr ' ' .)
	mkdir -p "$WORK/cores/$tag"
	mv "$core" "$WORK/$name"
	rm -rf "$run"
	echo "$bug $name" >>"$LABELS"
	n=$((n + 1))
	# Some cores truncated (a size limit, a broken copy): every twentieth,
	# cut at two thirds. Same bug, same label.
	if [ "$MODE" = full ] && [ $((n % 20)) -eq 0 ]; then
		size=$(wc -c <"$WORK/$name")
		head -c $((size * 2 / 3)) "$WORK/$name" >"$WORK/$name.cut.core"
		echo "$bug $name.cut.core" >>"$LABELS"
	fi
}

CBUGS="null_store use_after_free double_free assert bad_state stack_overflow divide bad_function_pointer strlen_null"

# c_corpus ARCH CC CXX QEMU BUILDS CALLERS THREADS: cbugs and config for
# each build ("O0-dynamic" ...), every bug through each caller, in
# each thread mode.
c_corpus() {
	arch=$1 cc=$2 cxx=$3 qemu=$4 builds=$5 callers=$6 threads=$7
	for b in $builds; do
		level=${b%-*} link=${b#*-}
		static=
		[ "$link" = static ] && static=-static
		tag=$arch-$b
		"$cc" -g -"$level" $static -o "$(bin "$tag" cbugs)" "$SRC/cbugs.c" -lpthread
		"$cxx" -g -"$level" $static -o "$(bin "$tag" config)" "$SRC/config.cc" -pthread
		for bug in $CBUGS; do
			# Integer division by zero traps on x86 and s390x only.
			[ "$bug" = divide ] && [ "$arch" = aarch64 ] && continue
			# qemu-s390x (7.2) reads page zero without a fault.
			[ "$bug" = strlen_null ] && [ "$arch" = s390x ] && continue
			for c in $callers; do
				for t in $threads; do
					crash "$tag" "$bug" cbugs "$qemu" "" "$bug" "$c" "$t"
				done
			done
		done
		for c in a b; do
			for t in $threads; do
				crash "$tag" cxx_terminate config "$qemu" "" "$c" "$t"
			done
		done
	done
}

if [ "$MODE" = slice ]; then
	# Each bug four times: every level, link mode, thread and caller
	# appears, not every combination.
	for spec in O0-dynamic:a:main O2-static:b:thread O2-dynamic:c:main O0-static:b:thread; do
		b=${spec%%:*} rest=${spec#*:}
		c_corpus x86_64 gcc g++ - "$b" "${rest%%:*}" "${rest#*:}"
	done
	rust_levels="0:a:main 2:b:thread"
	go_runs="a:main b:thread"
else
	c_corpus x86_64 gcc g++ - "O0-dynamic O0-static O2-dynamic O2-static" "a b c" "main thread"
	for arch in aarch64 s390x; do
		c_corpus "$arch" "$arch-linux-gnu-gcc" "$arch-linux-gnu-g++" "qemu-$arch" "O0-static O2-static" "a b c" "main thread"
	done
	rust_levels="0:a:main 0:a:thread 0:b:main 0:b:thread 2:a:main 2:a:thread 2:b:main 2:b:thread"
	go_runs="a:main a:thread b:main b:thread"
fi

for spec in $rust_levels; do
	level=${spec%%:*} rest=${spec#*:}
	tag=x86_64-rust-O$level
	[ -x "$WORK/bin/$tag/fleet" ] ||
		rustc -g -C panic=abort -C opt-level="$level" --crate-name fleet -o "$(bin "$tag" fleet)" "$SRC/fleet.rs"
	crash "$tag" rust_panic fleet - "" "${rest%%:*}" "${rest#*:}"
done
tag=x86_64-go
(cd "$SRC/_go" && GO111MODULE=off go build -o "$(bin "$tag" gopanic)" gopanic.go)
for spec in $go_runs; do
	crash "$tag" go_panic gopanic - GOTRACEBACK=crash "${spec%%:*}" "${spec#*:}"
done
rm -rf "$WORK/run"
echo "triage-corpus.sh: $(wc -l <"$LABELS") labelled cores in $WORK/cores; score them with" >&2
echo "  coreunwind triage eval --labels $LABELS --binaries $WORK/bin $WORK/cores" >&2

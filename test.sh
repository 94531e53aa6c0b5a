#!/bin/sh
# Runs coreunwind's whole test suite, installing what the tests need
# (Debian 12, as root) when it is missing. CI calls this script.
set -eu
cd "$(dirname "$0")"
export PATH="$PATH:/usr/local/go/bin"

# need CHECK PACKAGE: CHECK is a command name or an absolute path; the
# package is installed when it is missing.
missing=""
need() {
	case "$1" in
	/*) [ -e "$1" ] || missing="$missing $2" ;;
	*) command -v "$1" >/dev/null 2>&1 || missing="$missing $2" ;;
	esac
}
# x86_64: the reference tools, the C library's debug files, libunwind for
# the dynamic-unwind-info tests, Rust and Java for their crashes (a JVM is
# the large real program with JIT code).
need gdb gdb
need eu-stack elfutils
need readelf binutils
need gcc gcc
need g++ g++
need rustc rustc
need javac default-jdk-headless
need /usr/lib/debug/.build-id libc6-dbg
# Debian's CPython for the Python crash tests: the interpreter, its
# headers (a C extension that segfaults) and python3.11-dbg, whose gdb
# extension (py-bt) is the reference for the Python frames and whose
# DWARF describes the interpreter's structs.
need /usr/bin/python3.11 python3.11
need /usr/include/python3.11/Python.h python3.11-dev
need /usr/share/gdb/auto-load/usr/bin/python3.11-gdb.py python3.11-dbg
need /usr/include/x86_64-linux-gnu/libunwind.h libunwind-dev
# LLVM's JITs register relocatable objects with the GDB JIT interface.
need /usr/lib/llvm-14/bin/llvm-config llvm-14-dev
# clang for C++ programs built against libc++ (whose packages the tests
# unpack privately: libc++-14-dev conflicts with libunwind-dev).
need clang++-14 clang-14
# elfutils' debuginfod server (and debuginfod-find): the debuginfod
# client is tested against the real thing.
need debuginfod debuginfod
# Compressed cores.
need zstd zstd
need xz xz-utils
need lz4 lz4
# Journal files: systemd-journal-remote writes them from the export
# format, journalctl reads them (the reference). Not systemd-coredump
# (coredumpctl): its postinst sets kernel.core_pattern for the whole
# machine, and the tests need "core"; the tests download and unpack it
# without installing it (internal/testenv/coredumpctl.go).
need /lib/systemd/systemd-journal-remote systemd-journal-remote
need journalctl systemd
# Breakpad's tools (minidump_stackwalk, minidump_dump, dump_syms) and its
# source for core2md come from npm's minidump package, which the minidump
# tests install with npm (internal/testenv/breakpad.go).
need npm npm
# Other architectures: IA-64 assembler and binutils; PA-RISC compilers,
# qemu user mode and gdb-multiarch.
need ia64-linux-gnu-as binutils-ia64-linux-gnu
need hppa64-linux-gnu-objdump binutils-hppa64-linux-gnu
need hppa-linux-gnu-readelf binutils-hppa-linux-gnu
need hppa64-linux-gnu-gcc-12 gcc-12-hppa64-linux-gnu
need hppa-linux-gnu-gcc-12 gcc-12-hppa-linux-gnu
need /usr/hppa-linux-gnu/lib/libc.so.6 libc6-dev-hppa-cross
need qemu-hppa qemu-user
need gdb-multiarch gdb-multiarch
# Cross compilers and C libraries for the qemu-user cores of other
# architectures (modules from the link map, under --sysroot /usr/<triplet>).
need aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu
need /usr/aarch64-linux-gnu/lib/libc.so.6 libc6-dev-arm64-cross
# (and C++ for the aarch64 std::terminate test)
need aarch64-linux-gnu-g++ g++-aarch64-linux-gnu
need arm-linux-gnueabihf-gcc gcc-arm-linux-gnueabihf
need /usr/arm-linux-gnueabihf/lib/libc.so.6 libc6-dev-armhf-cross
# (and C++ for the armhf extab tables and std::terminate test)
need arm-linux-gnueabihf-g++ g++-arm-linux-gnueabihf
need powerpc64le-linux-gnu-gcc gcc-powerpc64le-linux-gnu
need /usr/powerpc64le-linux-gnu/lib/libc.so.6 libc6-dev-ppc64el-cross
# (and C++ for crash analysis's uncaught exception, as on s390x)
need powerpc64le-linux-gnu-g++ g++-powerpc64le-linux-gnu
# (and big-endian ppc64, ELFv1: function descriptors, qemu-ppc64 cores)
need powerpc64-linux-gnu-gcc gcc-powerpc64-linux-gnu
need /usr/powerpc64-linux-gnu/lib/libc.so.6 libc6-dev-ppc64-cross
need powerpc64-linux-gnu-g++ g++-powerpc64-linux-gnu
# (and 32-bit ppc, big-endian: qemu-ppc cores)
need powerpc-linux-gnu-gcc gcc-powerpc-linux-gnu
need /usr/powerpc-linux-gnu/lib/libc.so.6 libc6-dev-powerpc-cross
need s390x-linux-gnu-gcc gcc-s390x-linux-gnu
need /usr/s390x-linux-gnu/lib/libc.so.6 libc6-dev-s390x-cross
need s390x-linux-gnu-g++ g++-s390x-linux-gnu
# (and 31-bit s390 programs, -m31: built for their code, as qemu-s390x
# cannot run them)
need /usr/s390x-linux-gnu/lib32/libc.a libc6-dev-s390-s390x-cross
need /usr/lib/gcc-cross/s390x-linux-gnu/12/32/libgcc.a lib32gcc-12-dev-s390x-cross
# riscv64: qemu-riscv64 writes no core; the tests write one from what
# gdb-multiarch reads through qemu's gdbstub.
need riscv64-linux-gnu-gcc gcc-riscv64-linux-gnu
need /usr/riscv64-linux-gnu/lib/libc.so.6 libc6-dev-riscv64-cross
# i386: Debian's i686 cross compiler and C library (never gcc-multilib:
# apt would remove the cross compilers); the kernel runs the programs.
need i686-linux-gnu-gcc gcc-i686-linux-gnu
need /usr/i686-linux-gnu/lib/libc.a libc6-dev-i386-cross
# (and C++ for the i386 uncaught-exception cases)
need i686-linux-gnu-g++ g++-i686-linux-gnu
# x32: glibc's CFI for __restore_rt checks the signal-frame layout (the
# kernel here runs no x32 program).
need /usr/x86_64-linux-gnux32/lib/libc.so.6 libc6-x32-cross
# sparc64: qemu-sparc64 writes no core; the tests write one from what
# gdb-multiarch reads through qemu's gdbstub (and elfutils' kernel core).
need sparc64-linux-gnu-gcc gcc-sparc64-linux-gnu
# MIPS: o32 big- and little-endian and n64 programs, crashed under
# qemu-user (which writes their cores).
need mips-linux-gnu-gcc gcc-mips-linux-gnu
need mipsel-linux-gnu-gcc gcc-mipsel-linux-gnu
need mips64el-linux-gnuabi64-gcc gcc-mips64el-linux-gnuabi64
# SuperH (sh4): programs linked against e2e's sh4rt.c (Debian's sh4
# glibc cannot start), crashed under qemu-sh4 (which writes their cores).
need sh4-linux-gnu-gcc gcc-sh4-linux-gnu
if [ -n "$missing" ]; then
	echo "test.sh: installing$missing" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

# elfutils' real test cores of other architectures (written on real
# machines), from Debian's elfutils source package.
sh internal/testenv/elfutils-tests.sh testdata/elfutils

# The end-to-end tests crash programs and read the cores the kernel
# writes into the working directory.
# core_pattern is set to "core" for the run and the machine's own pattern
# (systemd-coredump's or apport's) is put back at exit.
ulimit -c unlimited
. internal/testenv/core-pattern.sh
core_pattern_for_tests

# Style gates: formatting, vet and staticcheck, as CI requires.
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
	echo "test.sh: gofmt would change:" $unformatted >&2
	exit 1
fi
go vet ./...
# Go tools are pinned in go.mod (tool directive): nothing is installed
# outside the module, so a fresh machine runs the same version as CI.
go tool staticcheck ./...
CI="${CI:-}" go test -count=1 -timeout 30m ./...
# The Beam pipeline (cmd coreunwind-beam) is a module of its own, beam/,
# so that the Beam SDK stays out of the main module: the same gates and
# its tests (prism, the embedded runner and the job service, is pinned
# in its go.mod and built by them).
(cd beam && go vet ./... && go tool staticcheck ./... && CI="${CI:-}" go test -count=1 -timeout 30m ./...)

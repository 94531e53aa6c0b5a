#!/bin/sh
# Unpacks elfutils' real test cores (tests/backtrace.<arch>[.fp].{core,exec}.bz2,
# testfile-riscv64-core.bz2: cores written on real hardware of each
# architecture) from Debian's elfutils source package into DIR. apt fetches
# the source with a private list and cache directory, so the system's apt
# configuration is not touched. Usage: elfutils-tests.sh DIR
set -eu
dir=$1
[ -f "$dir/.complete" ] && exit 0
work=$(mktemp -d /tmp/coreunwind-elfutils.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/src"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" > "$work/sources"
opts="-o Dir::Etc::SourceList=$work/sources -o Dir::Etc::SourceParts=/dev/null
 -o Dir::State::Lists=$work/lists -o Dir::Cache=$work/cache -o Debug::NoLocking=1
 -o APT::Sandbox::User=root"
apt-get $opts update -qq
(cd "$work/src" && apt-get $opts source --download-only -qq elfutils >/dev/null)
mkdir -p "$dir"
tar -xjf "$work"/src/elfutils_*.orig.tar.bz2 -C "$dir" --strip-components=2 \
	--wildcards 'elfutils-*/tests/backtrace.*.core.bz2' 'elfutils-*/tests/backtrace.*.exec.bz2' \
	'elfutils-*/tests/testfile-riscv64-core.bz2'
touch "$dir/.complete"

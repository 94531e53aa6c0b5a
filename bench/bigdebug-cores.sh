#!/bin/sh
# bigdebug-cores.sh OUTDIR: cores of programs whose debug information is
# big, in cores.sh's layout (OUTDIR/<case>/core and OUTDIR/<case>/exe),
# for run.sh (CORES_SCRIPT=bench/bigdebug-cores.sh bench/run.sh) and
# bigdebug-triage.sh. Cases (each left out, with a note, when what it
# needs is missing):
#   py311dbg   Debian's python3.11 with python3.11-dbg (LTO-built: its
#              units refer to each other with DW_FORM_ref_addr), 5
#              threads, os.abort()
#   libstdcxx  a C++ program dying of an uncaught exception thrown in 4
#              threads, with libstdc++'s debug file (libstdc++6-12-dbg)
#   gen-lto    cases/gen-cxx.sh's generated C++ program ($GEN_UNITS
#              units, default 330: 51 MB of DWARF), g++ -O2 -g -flto
#   gen-dwz    the same built without -flto and processed by dwz (75 MB)
#   go         a Go program with full DWARF panicking with GOTRACEBACK=crash
#   rust       a Rust program built with -g panicking with panic=abort
# BIG_CASES (default: all of them) picks some. Programs already built in
# OUTDIR are crashed again, not rebuilt.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
OUTDIR=$1
HERE=$(cd "$(dirname "$0")" && pwd)
CXX=${CXX:-g++}
GEN_UNITS=${GEN_UNITS:-330}
CASES=${BIG_CASES:-py311dbg libstdcxx gen-lto gen-dwz go rust}
if [ -z "${GO:-}" ]; then
	GO=go
	command -v go >/dev/null 2>&1 || GO=/usr/local/go/bin/go
fi
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
note() { printf 'bigdebug-cores.sh: %s\n' "$*" >&2; }
have() { command -v "$1" >/dev/null 2>&1; }

# crash DIR EXE ARGS...: as cores.sh's (env entries in CRASH_ENV).
crash() {
	dir=$1
	exe=$2
	shift 2
	rm -f "$dir"/core "$dir"/core.*
	inner='ulimit -c unlimited; exec "$@"'
	(cd "$dir" && env ${CRASH_ENV:-} sh -c 'sh -c "$0" crash "$@"; exit 0' "$inner" "$exe" "$@") >/dev/null 2>&1 || true
	for f in "$dir"/core.*; do
		[ -f "$f" ] && [ ! -f "$dir/core" ] && mv "$f" "$dir/core"
	done
	if [ ! -s "$dir/core" ]; then
		note "no core written in $dir for $exe"
		return 1
	fi
	printf '%s\n' "$exe" >"$dir/exe"
	echo "$(basename "$dir"): $(du -h "$dir/core" | cut -f1) core of $exe"
}

# debug_mb EXE: the size of .debug_info in MB as stored (as a note).
# (POSIX awk has no strtonum: the shell reads the hex size; the section
# number may be "[ 5]", two fields.)
debug_mb() {
	size=$(readelf -S -W "$1" 2>/dev/null | sed -n 's/.*\] \.debug_info  *[A-Z_]*  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
	[ -n "$size" ] && awk -v n="$((0x$size))" 'BEGIN { printf "%.1f", n / 1048576 }'
}

for c in $CASES; do
	d=$OUTDIR/$c
	mkdir -p "$d"
	case $c in
	py311dbg)
		if [ ! -x /usr/bin/python3.11 ] || ! dpkg -s python3.11-dbg >/dev/null 2>&1; then
			note "py311dbg: needs /usr/bin/python3.11 and python3.11-dbg"
			continue
		fi
		crash "$d" /usr/bin/python3.11 -c 'import os, threading, time
for _ in range(4): threading.Thread(target=time.sleep, args=(100,), daemon=True).start()
time.sleep(0.2); os.abort()' || true
		;;
	libstdcxx)
		dpkg -s libstdc++6-12-dbg >/dev/null 2>&1 || note "libstdcxx: libstdc++6-12-dbg is not installed: libstdc++ frames have no DWARF"
		cat >"$d/throw.cc" <<'EOF'
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
#include <unistd.h>
static void park() { for (;;) pause(); }
int main() {
	std::vector<std::thread> ts;
	for (int i = 0; i < 4; i++) ts.emplace_back(park);
	std::map<std::string, int> m{{"a", 1}};
	sleep(1);
	return m.at("missing"); // std::out_of_range, uncaught: std::terminate, abort
}
EOF
		# libstdc++6-12-dbg is not a detached debug file: it is a build
		# of libstdc++ with its DWARF in the library, in a directory of
		# its own that the program has to load it from.
		{ [ -x "$d/throw" ] || $CXX -O2 -g -pthread -o "$d/throw" "$d/throw.cc"; } &&
			CRASH_ENV="LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/debug" crash "$d" "$d/throw" || true
		;;
	gen-lto | gen-dwz)
		src=$OUTDIR/gen-src
		[ -f "$src/main.cc" ] || sh "$HERE/cases/gen-cxx.sh" "$src" "$GEN_UNITS"
		# Each build its own file name (gen_lto, gen_dwz): a triage
		# finds binaries by name.
		gen=$d/$(echo "$c" | tr - _)
		if [ -x "$gen" ]; then
			: # built by an earlier run (bigdebug-triage-cores.sh crashes it again)
		elif [ $c = gen-lto ]; then
			(cd "$src" && $CXX -O2 -g -flto=2 -o "$gen" ./*.cc) || { note "gen-lto: build failed"; continue; }
		else
			have dwz || { note "gen-dwz: dwz is not installed (apt-get install dwz)"; continue; }
			(cd "$src" && $CXX -O2 -g -o "$gen" ./*.cc) || { note "gen-dwz: build failed"; continue; }
			dwz "$gen" || note "gen-dwz: dwz failed"
		fi
		note "$c: .debug_info $(debug_mb "$gen") MB"
		crash "$d" "$gen" || true
		;;
	go)
		mkdir -p "$d/src"
		cat >"$d/src/main.go" <<'EOF'
package main

import (
	"encoding/json"
	"net/http"
	"os"
	"time"
)

type request struct{ Path string }

func handle(r request) int {
	var m map[string]int
	if len(os.Args) > 5 {
		m = map[string]int{}
	}
	m[r.Path]++ // nil map: panic
	return len(m)
}

func main() {
	for i := 0; i < 4; i++ {
		go func() { time.Sleep(time.Hour) }()
	}
	_ = http.DefaultClient
	b, _ := json.Marshal(request{"/x"})
	var r request
	_ = json.Unmarshal(b, &r)
	handle(r)
}
EOF
		(cd "$d/src" && [ -f go.mod ] || (cd "$d/src" && "$GO" mod init benchgo >/dev/null 2>&1)) || true
		[ -x "$d/gocrash" ] || (cd "$d/src" && CGO_ENABLED=0 "$GO" build -o "$d/gocrash" .) || { note "go: build failed"; continue; }
		CRASH_ENV=GOTRACEBACK=crash crash "$d" "$d/gocrash" || true
		;;
	rust)
		have rustc || { note "rust: rustc is not installed"; continue; }
		cat >"$d/main.rs" <<'EOF'
use std::collections::HashMap;
fn lookup(m: &HashMap<String, u32>, k: &str) -> u32 {
    *m.get(k).expect("no such key")
}
fn main() {
    let mut m = HashMap::new();
    m.insert("a".to_string(), 1);
    let ts: Vec<_> = (0..4).map(|_| std::thread::spawn(|| std::thread::sleep(std::time::Duration::from_secs(100)))).collect();
    std::thread::sleep(std::time::Duration::from_millis(200));
    println!("{}", lookup(&m, "missing"));
    drop(ts);
}
EOF
		[ -x "$d/rustcrash" ] || rustc -g -C opt-level=1 -C panic=abort -o "$d/rustcrash" "$d/main.rs" || { note "rust: build failed"; continue; }
		crash "$d" "$d/rustcrash" || true
		;;
	*) note "unknown case $c" ;;
	esac
done

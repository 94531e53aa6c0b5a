#!/bin/sh
# soak-triage.sh [WORKDIR]: triage under abuse, for hours if asked (not
# CI). Real cores (triage-cores.sh) are stored every way triage reads
# them (plain, zstd, tar -S with old GNU sparse members, tar.zst), with
# hostile inputs among them: empty files named like cores, a FIFO, a
# core cut short, a tar cut inside a member, a zstd stream that goes on
# for 256 MiB past its core. Then, ROUNDS times, a `-race` build of
# `coreunwind triage` is started on all of it and killed at a random
# point (SIGTERM, SIGINT or SIGKILL, at random), and every KEEP_EVERY-th
# round runs to its end. It fails (exit 1) when
#   - a caught signal leaves a coreunwind-* entry in the run's TMPDIR,
#     or a whole run leaves any (it must also sweep what SIGKILL left);
#   - a whole run does not report every good core, or reports another
#     failure count than the hostile inputs;
#   - the race detector reports anything;
#   - resident memory grows: a whole run's peak above 1.5x the first
#     whole run's, or (in a run of 5 s or more) the peak of its second
#     half above 1.5x that of its first half (sampled every 0.2 s).
#
# Environment: CORES (default 300), ROUNDS (default 30), KEEP_EVERY
# (default 5), JOBS (default: nproc), COREUNWIND (default: build
# ./cmd/coreunwind with -race).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
CORES=${CORES:-300}
ROUNDS=${ROUNDS:-30}
KEEP_EVERY=${KEEP_EVERY:-5}
JOBS=${JOBS:-$(nproc)}
WORK=${1:-$(mktemp -d /tmp/soak-triage.XXXXXX)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

for tool in gcc zstd tar jq mkfifo; do
	command -v "$tool" >/dev/null || { echo "soak-triage.sh: $tool is needed" >&2; exit 1; }
done
CORES=$CORES sh "$HERE/triage-cores.sh" "$WORK"

if [ -z "${COREUNWIND:-}" ]; then
	COREUNWIND=$WORK/coreunwind-race
	(cd "$ROOT" && go build -race -o "$COREUNWIND" ./cmd/coreunwind)
fi

# The inputs, rebuilt from the cores on every run of the script: every
# fourth core zstd-compressed, every fourth in a tar -S, every fourth in
# a tar.zst, the rest plain.
IN=$WORK/in
rm -rf "$IN" "$WORK/sparse" "$WORK/tarzst"
mkdir -p "$IN/plain" "$IN/zst" "$WORK/sparse" "$WORK/tarzst"
good=0
i=0
for c in "$WORK"/cores/core.*; do
	b=$(basename "$c")
	case $((i % 4)) in
	0) cp "$c" "$IN/plain/$b" ;;
	1) zstd -q -c "$c" >"$IN/zst/$b.zst" ;;
	2) cp --sparse=always "$c" "$WORK/sparse/$b" ;;
	3) cp "$c" "$WORK/tarzst/$b" ;;
	esac
	i=$((i + 1))
	good=$((good + 1))
done
(cd "$WORK/sparse" && tar --format=gnu -S -cf "$IN/sparse.tar" .)
(cd "$WORK/tarzst" && tar -cf - . | zstd -q -c >"$IN/more.tar.zst")

# Hostile inputs: each is one failure, except the FIFO (a walk skips
# what is not a regular file) and the bomb (its core is good: the junk
# past its end is dropped with a warning).
first=$(ls "$WORK"/cores/core.* | head -1)
mkdir -p "$IN/hostile"
: >"$IN/hostile/core.empty.1"
: >"$IN/hostile/core.empty.2"
mkfifo "$IN/hostile/core.fifo"
head -c 300 "$first" >"$IN/hostile/core.cut"
{ cat "$first"; head -c 268435456 /dev/zero | tr '\0' 'J'; } | zstd -q -c >"$IN/hostile/core.bomb.zst"
good=$((good + 1))
(cd "$WORK/sparse" && tar --format=gnu -S -cf "$WORK/cut.tar" "$(ls | head -1)")
head -c $(($(stat -c %s "$WORK/cut.tar") / 2)) "$WORK/cut.tar" >"$IN/hostile/cut.tar"
bad=5 # two empty, the cut core, the cut tar's member and the archive itself

TMP=$WORK/tmp
rm -rf "$TMP"
mkdir -p "$TMP"
left() { find "$TMP" -mindepth 1 -maxdepth 1 -name 'coreunwind-*' | wc -l; }
fail=0
complain() {
	echo "soak-triage.sh: $*" >&2
	fail=1
}
rand() { # rand N: 0..N-1
	echo $(($(od -An -N2 -tu2 /dev/urandom) % $1))
}

echo "inputs: $good good cores, $bad hostile inputs that must fail, in $IN"
round=1
while [ "$round" -le "$ROUNDS" ]; do
	log=$WORK/round.log
	if [ $((round % KEEP_EVERY)) -eq 0 ]; then
		TMPDIR=$TMP GORACE=halt_on_error=1 "$COREUNWIND" triage -j "$JOBS" --no-cache --binaries "$WORK/bin" \
			--format json -o "$WORK/out.json" "$IN" 2>"$log" &
		pid=$!
		samples=$WORK/rss
		: >"$samples"
		while kill -0 "$pid" 2>/dev/null; do
			awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null >>"$samples" || true
			sleep 0.2
		done
		rc=0
		wait "$pid" || rc=$?
		got=$(jq .cores_analyzed "$WORK/out.json" 2>/dev/null || echo "?")
		failed=$(jq .cores_failed "$WORK/out.json" 2>/dev/null || echo "?")
		n=$(wc -l <"$samples")
		growth=$(awk -v n="$n" 'NR <= n/2 { if ($1 > a) a = $1 } NR > n/2 { if ($1 > b) b = $1 }
			END { if (n >= 25 && a > 0 && b > 1.5 * a) print "grew from " a " to " b " KiB"; else print "" }' "$samples")
		peak=$(sort -n "$samples" | tail -1)
		first_peak=${first_peak:-$peak}
		[ "${peak:-0}" -le $((first_peak * 3 / 2)) ] || growth="peaked at $peak KiB, the first whole run at $first_peak KiB"
		echo "round $round: whole run, exit $rc, $got analyzed, $failed failed, peak RSS $peak KiB"
		[ "$got" = "$good" ] || complain "round $round: $got cores analyzed, want $good"
		[ "$failed" = "$bad" ] || complain "round $round: $failed failures, want $bad"
		[ -z "$growth" ] || complain "round $round: resident memory $growth"
		[ "$(left)" -eq 0 ] || complain "round $round: a whole run left $(left) entries in TMPDIR (SIGKILL's included: the sweep must remove them)"
	else
		TMPDIR=$TMP GORACE=halt_on_error=1 "$COREUNWIND" triage -j "$JOBS" --no-cache --binaries "$WORK/bin" \
			--format json -o "$WORK/out.json" "$IN" 2>"$log" &
		pid=$!
		sleep "$(rand 4).$(rand 10)"
		sig=$(echo TERM INT KILL | cut -d' ' -f$(($(rand 3) + 1)))
		kill -s "$sig" "$pid" 2>/dev/null || true
		rc=0
		wait "$pid" || rc=$?
		echo "round $round: SIG$sig, exit $rc, $(left) coreunwind-* entries left"
		if [ "$sig" != KILL ] && [ "$(left)" -ne 0 ]; then
			# What an earlier SIGKILL left stays until a run's start
			# sweeps it; a caught signal's own directory must be gone.
			find "$TMP" -mindepth 1 -maxdepth 1 -name "coreunwind-*-$pid-*" | grep -q . &&
				complain "round $round: SIG$sig left $(find "$TMP" -name "coreunwind-*-$pid-*")"
		fi
	fi
	if grep -q "DATA RACE" "$log"; then
		complain "round $round: data race (see $log)"
		cp "$log" "$WORK/race.$round.log"
	fi
	round=$((round + 1))
done
[ "$fail" -eq 0 ] && echo "soak-triage.sh: $ROUNDS rounds, no failure"
exit "$fail"

#!/bin/sh
# gen-cxx.sh DIR UNITS: write a C++ program of UNITS source files into DIR
# for the big-debug-info benchmark. Each file instantiates class and
# function templates over several types (many DIEs, types shared between
# units for dwz to move into partial units, abstract functions for LTO
# to refer to across units) and calls into the next file; the last one
# dereferences NULL, so the crashed thread's stack crosses every unit
# through inlined template code.
set -eu
DIR=$1
UNITS=$2
mkdir -p "$DIR"
cat >"$DIR/gen.h" <<'EOF'
#include <cstddef>
#include <map>
#include <string>
#include <vector>
namespace gen {
template <typename T, int N> struct Box {
	std::vector<T> items;
	std::map<int, std::string> names;
	T sum() const { T s{}; for (const T &v : items) s = s + v; return s; }
	int weight() const { return N * static_cast<int>(items.size()); }
};
template <typename T> inline __attribute__((always_inline)) int touch(const T *p) { return p->weight() + 1; }
int step(int unit, int depth, const int *crash);
} // namespace gen
EOF
i=0
while [ "$i" -lt "$UNITS" ]; do
	next=$((i + 1))
	{
		echo '#include "gen.h"'
		echo "namespace gen { namespace u$i {"
		for k in 1 2 3 4 5 6 7 8; do
			echo "template <typename T> struct Node$k { Box<T, $k> box; T extra[$k]; int visit(int d) const { return box.weight() + d * $k; } };"
			echo "static int use$k(int d) { Node$k<int> a{}; Node$k<double> b{}; Node$k<std::string> c{}; a.box.items.push_back(d); return a.visit(d) + b.visit(d) + c.visit(static_cast<int>(c.box.items.size())) + static_cast<int>(a.box.sum()); }"
		done
		echo "__attribute__((noinline)) int entry(int depth, const int *crash) {"
		echo "	int r = use1(depth) + use2(depth) + use3(depth) + use4(depth) + use5(depth) + use6(depth) + use7(depth) + use8(depth);"
		if [ "$next" -lt "$UNITS" ]; then
			echo "	return r + step($next, depth + 1, crash);"
		else
			echo "	return r + *crash;"
		fi
		echo "}"
		echo "} }"
	} >"$DIR/u$i.cc"
	i=$next
done
{
	echo '#include "gen.h"'
	echo "namespace gen {"
	i=0
	while [ "$i" -lt "$UNITS" ]; do
		echo "namespace u$i { int entry(int, const int *); }"
		i=$((i + 1))
	done
	echo "int step(int unit, int depth, const int *crash) {"
	echo "	switch (unit) {"
	# Each unit's entry calls the next through here: the crashing stack
	# has a frame in every unit, all over .debug_info.
	i=0
	while [ "$i" -lt "$UNITS" ]; do
		echo "	case $i: return u$i::entry(depth, crash);"
		i=$((i + 1))
	done
	echo "	}"
	echo "	return 0;"
	echo "}"
	echo "} // namespace gen"
	echo "int main(int argc, char **) { return gen::step(0, argc, argc > 100 ? &argc : nullptr); }"
} >"$DIR/main.cc"

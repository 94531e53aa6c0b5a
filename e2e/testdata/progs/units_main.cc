// units_main.cc, units_walk.cc, units_leaf.cc: a NULL load inlined into
// units::leaf, called through units::walk from main, each in its own unit.
#include <cstdio>
#include "units.h"

int main(int argc, char **) {
	units::Cell<int> tail{argc, nullptr};
	units::Cell<int> head{argc, argc > 100 ? &tail : nullptr};
	int r = units::walk(&head, argc);
	std::printf("%d %zu\n", r, head.depth());
	return r == 7 ? 1 : 0;
}

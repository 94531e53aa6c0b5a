// units.h: shared by the units of the lto and dwz test programs, so that
// dwz finds DIEs to move into partial units and LTO's units refer to the
// early-debug units of each file (DW_FORM_ref_addr).
#include <cstddef>

namespace units {
template <typename T> struct Cell {
	T value;
	Cell *next;
	std::size_t depth() const { return next ? next->depth() + 1 : 1; }
};

static inline __attribute__((always_inline)) int load(const Cell<int> *c) {
	return c->value * 3;
}

int walk(const Cell<int> *c, int k);
int leaf(const Cell<int> *c, int k);
} // namespace units

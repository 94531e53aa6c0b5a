// inline.cc: built at -O2 -g; the null load happens in a function inlined
// twice into outer_call, so one pc carries three frames with their own lines.
#include <cstdio>

namespace geo {
template <typename T> struct Point {
	T x, y;
};

static inline __attribute__((always_inline)) int load_x(const Point<int> *p) {
	return p->x * 3;
}

static inline __attribute__((always_inline)) int scaled(const Point<int> *p, int k) {
	int v = load_x(p);
	return v * k + 1;
}

__attribute__((noinline)) int outer_call(const Point<int> *p, int k) {
	int s = scaled(p, k + 2);
	return s ^ 0x55;
}
} // namespace geo

int main(int argc, char **) {
	const geo::Point<int> *p = argc > 100 ? new geo::Point<int>{1, 2} : nullptr;
	int r = geo::outer_call(p, argc);
	std::printf("%d\n", r);
	return r == 7 ? 1 : 0;
}

// exception.cc: an exception nobody catches: std::terminate -> abort.
#include <stdexcept>
#include <string>

volatile int sink;

namespace shop {
struct Basket {
	__attribute__((noinline)) void checkout(int items) {
		if (items > 0)
			throw std::runtime_error("basket " + std::to_string(items));
		sink = items;
	}
};

__attribute__((noinline)) void process(Basket &b, int n) {
	b.checkout(n);
	sink = n;
}
} // namespace shop

int main(int argc, char **) {
	shop::Basket b;
	shop::process(b, argc);
	return 0;
}

// what.cc: uncaught exceptions whose what() the report must show, by the
// first argument: "invalid" a std::invalid_argument, "custom" a class
// derived from std::runtime_error, "own-what" one that overrides what()
// (its message is not the one the object holds), "runtime" a
// std::runtime_error, "audit" a std::exception subclass with a what() of
// its own.
#include <cstring>
#include <stdexcept>
#include <string>

volatile int sink;

namespace shop {
struct StockError : std::runtime_error {
	explicit StockError(const std::string &item) : std::runtime_error("out of stock: " + item) {}
};

struct LoudError : std::runtime_error {
	LoudError() : std::runtime_error("held, not said") {}
	const char *what() const noexcept override { return "said, not held"; }
};

struct AuditError : std::exception {
	const char *what() const noexcept override { return "ledger out of balance"; }
};

__attribute__((noinline)) void withdraw(const char *how, int amount) {
	if (strcmp(how, "invalid") == 0)
		throw std::invalid_argument("negative amount " + std::to_string(amount));
	if (strcmp(how, "custom") == 0)
		throw StockError("widget #" + std::to_string(-amount));
	if (strcmp(how, "own-what") == 0)
		throw LoudError();
	if (strcmp(how, "runtime") == 0)
		throw std::runtime_error("negative amount " + std::to_string(amount));
	if (strcmp(how, "audit") == 0)
		throw AuditError();
	sink = amount;
}
} // namespace shop

int main(int argc, char **argv) {
	shop::withdraw(argc > 1 ? argv[1] : "", -3);
	return 0;
}

// config: a C++ program whose uncaught exception reaches std::terminate
// (the labelled triage corpus). Usage: config CALLER [thread]
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#define NOINLINE __attribute__((noinline))

struct Config {
	NOINLINE void load(int version) {
		if (version > 0)
			throw std::runtime_error("config version " + std::to_string(version) + " unsupported");
	}
};

NOINLINE void start_a(int v) { Config c; c.load(v); }
NOINLINE void start_b(int v) { start_a(v + 1); }

int main(int argc, char **argv) {
	if (argc < 2)
		return 2;
	bool b = argv[1][0] == 'b';
	auto run = [&] { b ? start_b(argc) : start_a(argc); };
	if (argc > 2 && !std::strcmp(argv[2], "thread")) {
		std::thread t(run);
		t.join();
	} else {
		run();
	}
	return 0;
}

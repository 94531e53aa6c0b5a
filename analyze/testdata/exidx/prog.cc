// C++ for the readelf -u comparison: cleanups and catch clauses give
// extab entries with __gxx_personality_v0 and its LSDA.
#include <stdexcept>
#include <string>

struct Guard {
	std::string name;
	~Guard();
};
Guard::~Guard() {}

int thrower(int n)
{
	Guard g{"guard"};
	if (n > 2)
		throw std::runtime_error("n > 2");
	return n;
}

int main(int argc, char **)
{
	try {
		return thrower(argc);
	} catch (const std::exception &) {
		return 1;
	}
}

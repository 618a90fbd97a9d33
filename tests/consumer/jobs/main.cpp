// A host program of consumer_jobs: it needs kiln.hpp, not the package, to compile.
#include <kiln/kiln.hpp>

int main() { return 0; }

// Host code for consumer_arguments' strict scanning case: it asks for a kernel no kernel source
// defines, so a STRICT cache that scans its target fails, naming this file and line 5.
#include <kiln/kiln.hpp>

kiln::Kernel missing(const kiln::Package& package) { return package.kernel("no_such_kernel<int>"); }

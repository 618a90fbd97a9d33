// Host code for consumer_arguments' scanning case: the generator finds the request below and builds
// fill<int>. It needs the scanned target's include directory and definition to parse.
#include "host_request.hpp"

#ifndef HOST_DEFINE
#error "the scanner did not get the target's compile definitions"
#endif

kiln::Kernel requested(const kiln::Package& package) { return package.kernel("fill<int>"); }

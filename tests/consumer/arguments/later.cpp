// Host code for consumer_arguments' scanning case, added to app with target_sources() after
// kiln_add_cache() and written in C++20 (a concept, std::span), with target_compile_features(app
// PRIVATE cxx_std_20) after the call too: SCAN_TARGETS reads both when the build system is
// generated, the scanner parses this at c++20, and the package holds the fill<double> asked for.
#include <kiln/kiln.hpp>

#include <span>

template <class T>
concept wide = sizeof(T) == 8;
static_assert(wide<double>);

kiln::Kernel requested_later(const kiln::Package& package, std::span<const double>) {
  return package.kernel("fill<double>");
}

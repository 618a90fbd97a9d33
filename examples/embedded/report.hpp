// How the embedded example prints a package: host code only, unrelated to the kernels (changing it
// rebuilds the program, never the package).
#pragma once

#include <kiln/kiln.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

namespace embedded_example {

inline void print_package(const kiln::Package& package) {
  const std::uint32_t version = kiln::version();
  std::printf("embedded: package vector_ops, linked into this program (Kiln runtime %u.%u.%u)\n", version / 10000,
              version / 100 % 100, version % 100);
  for (const std::string& name : package.kernel_names()) std::printf("  kernel  %s\n", name.c_str());
  for (const std::string& target : package.targets()) std::printf("  target  %s\n", target.c_str());
}

}  // namespace embedded_example

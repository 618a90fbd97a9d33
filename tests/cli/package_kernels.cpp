#include "package_kernels.hpp"

#include "format/package_reader.hpp"
#include "kiln_runner.hpp"
#include "package/kernel_names.hpp"

#include <stdexcept>

namespace kiln::test {

std::set<std::string> kernels_of(const std::filesystem::path& package) {
  const std::vector<std::byte> bytes = read_bytes(package);
  format::PackageReader reader;
  if (!reader.open(bytes)) throw std::runtime_error("cannot open " + package.string());
  std::set<std::string> names;
  for (std::uint32_t i = 0; i < reader.kernel_count(); ++i)
    names.insert(package::canonical_kernel_name(reader.kernel(i).lowered_name));
  return names;
}

}  // namespace kiln::test

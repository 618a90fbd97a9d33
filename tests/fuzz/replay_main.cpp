// Runs the fuzz target once on each file named (or each file in each folder named), for builds
// without libFuzzer: g++ builds replay the checked-in corpus with it, so every CI run does. Each file
// must be a package of the reader's major version: one of another version is refused before any
// other check, so it would replay without testing what its name says (README.md).
#include "format/layout.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <cstring>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

int replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
    return 1;
  }
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  namespace format = kiln::format;
  std::uint16_t version[2] = {0, 0};   // major, minor
  if (bytes.size() < offsetof(format::FileHeader, header_size) ||
      std::memcmp(bytes.data(), format::k_magic.data(), format::k_magic.size()) != 0) {
    std::fprintf(stderr, "replay: %s is not a Kiln package: no magic and version at its start\n", file.c_str());
    return 1;
  }
  std::memcpy(version, bytes.data() + offsetof(format::FileHeader, version_major), sizeof version);
  if (version[0] != format::k_version_major) {
    std::fprintf(stderr, "replay: %s is package format %u.%u, not %u.x: the reader refuses it for its version alone\n",
                 file.c_str(), unsigned{version[0]}, unsigned{version[1]}, unsigned{format::k_version_major});
    return 1;
  }
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int failures = 0;
  std::size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path path = argv[i];
    if (std::filesystem::is_directory(path)) {
      for (const auto& entry : std::filesystem::directory_iterator(path)) {
        if (!entry.is_regular_file()) continue;
        failures += replay(entry.path());
        ++replayed;
      }
    } else {
      failures += replay(path);
      ++replayed;
    }
  }
  std::printf("replayed %zu inputs\n", replayed);
  // An empty corpus would make this test pass without testing anything.
  return failures == 0 && replayed > 0 ? 0 : 1;
}

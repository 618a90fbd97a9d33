// kiln-configure-check --nvrtc-facts="13 0 13 0 75 80 ..." [--targets T,...] [--option=OPT]...:
// kiln check's checks (unit_check.hpp) for kiln_add_cache inside Kiln's own tree, where the generator
// is not built yet when CMake configures. CMake builds it then (generator/src/check/CMakeLists.txt)
// from the one option table and reader, and gives it NVRTC's facts as Kiln's configuration asked them
// (nvrtc_facts_probe.c); it links nothing else and loads no library. Exit codes are kiln check's.
#include "check/unit_check.hpp"
#include "cli/exit_codes.hpp"

#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

using kiln::check::CheckOutcome;

void split_targets(std::string_view list, std::vector<std::string>& out) {
  for (std::size_t start = 0; start <= list.size();) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    if (comma > start) out.emplace_back(list.substr(start, comma - start));
    start = comma + 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  kiln::check::UnitCheck unit;
  std::optional<std::string> facts_text;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--nvrtc-facts=")) {
      facts_text = std::string(arg.substr(14));
    } else if (arg.starts_with("--option=")) {
      unit.options.emplace_back(arg.substr(9));
    } else if (arg.starts_with("--targets=")) {
      split_targets(arg.substr(10), unit.targets);
    } else if (arg == "--targets" && i + 1 < argc) {
      split_targets(argv[++i], unit.targets);
    } else {
      std::cerr << "kiln-configure-check: error: unknown argument '" << arg << "'\n";
      return kiln::cli::k_exit_usage;
    }
  }
  const auto nvrtc = [&]() -> kiln::Result<kiln::check::NvrtcFacts> {
    if (facts_text)
      if (std::optional<kiln::check::NvrtcFacts> facts = kiln::check::parse_nvrtc_facts(*facts_text)) return *facts;
    return kiln::Error{"NVRTC's architectures were not asked when Kiln was configured"};
  };
  switch (kiln::check::check_unit(unit, nvrtc, std::cerr)) {
    case CheckOutcome::accepted: return kiln::cli::k_exit_ok;
    case CheckOutcome::refused: return kiln::cli::k_exit_usage;
    case CheckOutcome::nvrtc_unknown: return kiln::cli::k_exit_environment;
  }
  return kiln::cli::k_exit_internal;
}

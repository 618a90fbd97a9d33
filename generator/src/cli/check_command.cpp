// kiln check [--targets T,...] [--option=OPT]... [--cuda-root DIR]: checks targets and compile options
// as kiln build does (format::parse_target and the toolkit's NVRTC for targets, the one option table
// for options), without a manifest or a compile, so that kiln_add_cache() can refuse them when CMake
// configures, at the call's line, instead of in its generated manifest at build time (docs/cmake.md).
// The checks are check/unit_check.hpp's, which Kiln's configure-time checker makes too.
// kiln check --list-architectures: NVRTC's architectures, which kiln_add_cache expands all, all-major
// and its default from.
#include "check/unit_check.hpp"
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "compile/nvrtc_library.hpp"
#include "compile/toolkit.hpp"
#include "util/diagnostic.hpp"

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace kiln::cli {

namespace {

class CheckCommand : public Command {
public:
  void configure(CLI::App& app) override {
    app.add_option("--targets", m_targets, "Targets to check (sm_80,compute_80)")->delimiter(',');
    app.add_option("--option", m_options,
                   "A compile option, as the manifest's 'options' takes it (--option=-maxrregcount=64); all of "
                   "them are read together, as one unit's");
    app.add_option("--cuda-root", m_cuda_root, "The CUDA toolkit whose NVRTC decides which targets it supports");
    app.add_flag("--list-architectures", m_list_architectures,
                 "Print the architectures NVRTC supports (75 80 ...), lowest first, and check nothing");
  }

  // Every problem on stderr, one line each; 2 if there is one, 4 if targets were given but no
  // toolkit was found to check them against.
  int run() override {
    if (m_list_architectures) return list_architectures();
    const auto nvrtc = [this]() -> Result<check::NvrtcFacts> {
      Result<compile::Toolkit> toolkit = compile::find_toolkit(m_cuda_root);
      if (!toolkit) return toolkit.error();
      return check::NvrtcFacts{toolkit->nvrtc_major, toolkit->nvrtc_minor, toolkit->nvjitlink_major,
                               toolkit->nvjitlink_minor, toolkit->supported_archs};
    };
    switch (check::check_unit({m_targets, m_options}, nvrtc, std::cerr)) {
      case check::CheckOutcome::accepted: return k_exit_ok;
      case check::CheckOutcome::refused: return k_exit_usage;
      case check::CheckOutcome::nvrtc_unknown: return k_exit_environment;
    }
    return k_exit_internal;
  }

private:
  std::vector<std::string> m_targets;
  std::vector<std::string> m_options;
  std::filesystem::path m_cuda_root;
  bool m_list_architectures = false;

  // The architectures of the NVRTC kiln build compiles with (the files kiln was built against, not
  // the toolkit at --cuda-root, which gives headers only), on one line. Where those files are absent
  // (Kiln from pip where CUDA is NVIDIA's wheels) the build's are the found toolkit's, which
  // find_toolkit chooses as kiln build does; with no toolkit found, the built-in files all the same.
  int list_architectures() const {
    Result<compile::Toolkit> toolkit = compile::find_toolkit(m_cuda_root);
    const Result<compile::NvrtcFacts> facts =
        toolkit ? Result<compile::NvrtcFacts>(check::NvrtcFacts{toolkit->nvrtc_major, toolkit->nvrtc_minor,
                                                                toolkit->nvjitlink_major, toolkit->nvjitlink_minor,
                                                                toolkit->supported_archs})
                : compile::nvrtc_facts({});
    if (!facts) {
      std::cerr << diagnostic(Location{}, "error", facts.error().message) << "\n";
      return k_exit_environment;
    }
    std::string line;
    for (const int arch : facts->archs) line += (line.empty() ? "" : " ") + std::to_string(arch);
    std::cout << line << "\n";
    return k_exit_ok;
  }
};

}  // namespace

std::unique_ptr<Command> make_check_command() { return std::make_unique<CheckCommand>(); }

}  // namespace kiln::cli

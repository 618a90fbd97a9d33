// kiln check [--targets T,...] [--option=OPT]... [--cuda-root DIR]: checks targets and compile options
// as kiln build does (format::parse_target and the toolkit's NVRTC for targets, the one option table
// for options), without a manifest or a compile, so that kiln_add_cache() can refuse them when CMake
// configures, at the call's line, instead of in its generated manifest at build time (docs/cmake.md).
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "compile/toolkit.hpp"
#include "format/target.hpp"
#include "options/compiler_options.hpp"
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
  }

  // Every problem on stderr, one line each; 2 if there is one, 4 if targets were given but no
  // toolkit was found to check them against.
  int run() override {
    bool refused = false;
    if (!m_options.empty()) {
      if (Result<options::CompilerOptions> read = options::interpret(m_options); !read) {
        std::cerr << diagnostic(Location{}, "error", read.error().message) << "\n";
        refused = true;
      }
    }
    std::vector<int> archs;
    for (const std::string& name : m_targets) {
      const std::optional<format::Target> target = format::parse_target(name);
      if (!target) {
        std::cerr << diagnostic(Location{}, "error", "unknown target '" + name + "'") << "\n";
        refused = true;
      } else {
        archs.push_back(target->arch);
      }
    }
    if (!archs.empty()) {
      Result<compile::Toolkit> toolkit = compile::find_toolkit(m_cuda_root);
      if (!toolkit) {
        std::cerr << diagnostic(Location{}, "error", toolkit.error().message) << "\n";
        return refused ? k_exit_usage : k_exit_environment;
      }
      for (std::size_t i = 0, a = 0; i < m_targets.size(); ++i) {
        if (!format::parse_target(m_targets[i])) continue;
        if (!toolkit->supports(archs[a++])) {
          std::cerr << diagnostic(Location{}, "error", toolkit->unsupported_target(m_targets[i])) << "\n";
          refused = true;
        }
      }
    }
    return refused ? k_exit_usage : k_exit_ok;
  }

private:
  std::vector<std::string> m_targets;
  std::vector<std::string> m_options;
  std::filesystem::path m_cuda_root;
};

}  // namespace

std::unique_ptr<Command> make_check_command() { return std::make_unique<CheckCommand>(); }

}  // namespace kiln::cli

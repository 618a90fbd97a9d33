#include "cli/cli.hpp"

#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "version.hpp"

#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

namespace kiln::cli {

namespace {

constexpr CommandEntry k_commands[] = {
    {"build", "Compile the kernels a kiln.toml lists into one package file", &make_build_command},
    {"inspect", "Show what a package holds, and which image a device would load", &make_inspect_command},
    {"verify", "Check every checksum, cubin header and kernel symbol of a package", &make_verify_command},
    {"scan", "List the kernels, instantiations and runtime requests clang finds in CUDA sources", &make_scan_command},
    {"cache", "Show, clear or trim the compile and scan cache", &make_cache_command},
};

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"kiln: ahead-of-time CUDA kernel packages"};
  app.set_version_flag("--version", std::string("kiln ") + k_version);
  app.require_subcommand(1);
  app.failure_message(CLI::FailureMessage::simple);  // the error, then "Run with --help": not buried under the help text
  std::vector<std::unique_ptr<Command>> commands;
  std::vector<std::pair<CLI::App*, Command*>> subcommands;
  for (const CommandEntry& entry : k_commands) {
    commands.push_back(entry.make());
    CLI::App* sub = app.add_subcommand(std::string(entry.name), std::string(entry.summary));
    commands.back()->configure(*sub);
    subcommands.emplace_back(sub, commands.back().get());
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? k_exit_ok : k_exit_usage;
  }
  std::string running;
  try {
    for (auto& [sub, command] : subcommands) {
      if (!sub->parsed()) continue;
      running = sub->get_name();
      return command->run();
    }
  } catch (const std::bad_alloc&) {
    // Not a bug: an input larger than this machine (or its memory limit) allows.
    std::cerr << "kiln: error: out of memory: `kiln " << running << "` needs more memory than this process may use\n";
    return k_exit_environment;
  } catch (const std::exception& e) {
    std::cerr << "kiln: internal error: " << e.what() << "\n";
    return k_exit_internal;
  }
  return k_exit_usage;
}

}  // namespace kiln::cli

#include "cli/cli.hpp"

#include "cli/color.hpp"
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "util/diagnostic.hpp"
#include "util/suggest.hpp"
#include "version.hpp"

#include <unistd.h>

#include <cstdlib>

#include <exception>
#include <map>
#include <iostream>
#include <new>
#include <string>
#include <vector>

namespace kiln::cli {

namespace {

constexpr CommandEntry k_commands[] = {
    {"build", "Compile the kernels a kiln.toml lists into one package file", &make_build_command},
    {"merge", "Combine the parts of a sharded build (kiln build --shard I/N) into its package", &make_merge_command},
    {"inspect", "Show what a package holds, and which image a device would load", &make_inspect_command},
    {"extract", "Write the cubin or PTX that holds a kernel, for cuobjdump, nvdisasm or ptxas", &make_extract_command},
    {"verify", "Check every checksum, cubin header and kernel symbol of a package", &make_verify_command},
    {"split", "Split a package into its index and PTX, and one file of cubins per GPU architecture", &make_split_command},
    {"scan", "List the kernels, instantiations and runtime requests clang finds in CUDA sources", &make_scan_command},
    {"check", "Check targets and compile options as kiln build would, without building (for kiln_add_cache)", &make_check_command},
    {"compile-commands", "Merge kiln build --compile-commands files into a compile_commands.json (for kiln_add_cache)",
     &make_compile_commands_command},
    {"harvest", "Write the kernels the run-time fallback compiled as manifest entries, for kiln build --add",
     &make_harvest_command},
    {"cache", "Show, clear or trim the compile and scan cache; make keys that sign remote entries", &make_cache_command},
};

// "kiln biuld": CLI11 would say "A subcommand is required"; name the word and the nearest command.
// Passes when argv[1] is an option or a command.
Status check_command(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-' || argv[1][0] == '\0') return {};
  const std::string_view word = argv[1];
  std::vector<std::string_view> names;
  for (const CommandEntry& entry : k_commands) {
    if (entry.name == word) return {};
    names.push_back(entry.name);
  }
  return fail(KILN_STATUS_INVALID_ARGUMENT, "unknown command '" + std::string(word) + "'" + did_you_mean(word, names) +
                                                " (kiln --help lists the commands)");
}

int run_parsed(std::vector<std::pair<CLI::App*, Command*>>& subcommands) {
  std::string running;
  try {
    for (auto& [sub, command] : subcommands) {
      if (!sub->parsed()) continue;
      running = sub->get_name();
      return command->run();
    }
  } catch (const std::bad_alloc&) {
    // Not a bug: an input larger than this machine (or its memory limit) allows.
    // Streamed in pieces, not built as one string: memory has just run out.
    std::cerr << "kiln: error: out of memory: `kiln " << running << "` needs more memory than this process may use\n";
    return k_exit_environment;
  } catch (const std::exception& e) {
    std::cerr << diagnostic(Location{}, "internal error", e.what()) << "\n";
    return k_exit_internal;
  }
  return k_exit_usage;
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"kiln: ahead-of-time CUDA kernel packages"};
  app.set_version_flag("--version", std::string("kiln ") + k_version);
  app.require_subcommand(1);
  app.failure_message(CLI::FailureMessage::simple);  // the error, then "Run with --help": not buried under the help text
  ColorMode color = ColorMode::automatic;
  app.add_option("--color", color, "Colour diagnostics: auto (on a terminal, unless NO_COLOR is set), always, never")
      ->transform(CLI::CheckedTransformer(std::map<std::string, ColorMode>{
          {"auto", ColorMode::automatic}, {"always", ColorMode::always}, {"never", ColorMode::never}}))
      ->option_text("auto|always|never");
  std::vector<std::unique_ptr<Command>> commands;
  std::vector<std::pair<CLI::App*, Command*>> subcommands;
  for (const CommandEntry& entry : k_commands) {
    commands.push_back(entry.make());
    CLI::App* sub = app.add_subcommand(std::string(entry.name), std::string(entry.summary));
    sub->fallthrough();   // `kiln build --color=never` as well as `kiln --color=never build`
    commands.back()->configure(*sub);
    subcommands.emplace_back(sub, commands.back().get());
  }
  // Everything kiln prints from here on is escaped on its way out, the command line's own errors too.
  OutputLines errors(std::cerr);
  OutputLines output(std::cout);
  if (const Status known = check_command(argc, argv); !known) {
    errors.color(use_color(ColorMode::automatic, isatty(STDERR_FILENO) == 1, std::getenv("NO_COLOR")));
    std::cerr << diagnostic(known.error()) << "\n";
    return k_exit_usage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? k_exit_ok : k_exit_usage;
  }
  errors.color(use_color(color, isatty(STDERR_FILENO) == 1, std::getenv("NO_COLOR")));
  return run_parsed(subcommands);
}

}  // namespace kiln::cli

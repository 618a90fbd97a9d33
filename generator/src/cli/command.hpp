// A subcommand of `kiln`: registers its options on a CLI11 subcommand, then runs.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string_view>

namespace kiln::cli {

class Command {
public:
  virtual ~Command() = default;
  virtual void configure(CLI::App& app) = 0;
  virtual int run() = 0;                       // returns an exit code (exit_codes.hpp)
};

struct CommandEntry {
  std::string_view name;
  std::string_view summary;
  std::unique_ptr<Command> (*make)();
};

std::unique_ptr<Command> make_build_command();
std::unique_ptr<Command> make_merge_command();
std::unique_ptr<Command> make_inspect_command();
std::unique_ptr<Command> make_extract_command();
std::unique_ptr<Command> make_verify_command();
std::unique_ptr<Command> make_split_command();
std::unique_ptr<Command> make_scan_command();
std::unique_ptr<Command> make_cache_command();
std::unique_ptr<Command> make_check_command();
std::unique_ptr<Command> make_compile_commands_command();
std::unique_ptr<Command> make_harvest_command();

}  // namespace kiln::cli

// kiln compile-commands DATABASE FRAGMENT...: puts the kernel sources' entries that kiln build
// --compile-commands wrote (the fragments) into a compilation database, replacing the entries of the
// packages they name and keeping every other (CMake's own). kiln_add_cache runs it once per build
// tree over all its caches' fragments, so one process alone writes the database.
#include "build/compile_database.hpp"
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "util/diagnostic.hpp"
#include "util/file_io.hpp"

#include <iostream>

namespace kiln::cli {

namespace {

namespace fs = std::filesystem;

class CompileCommandsCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app.add_option("database", m_database, "The compilation database to update (made if missing)")->required();
    app.add_option("fragments", m_fragments,
                   "The databases kiln build --compile-commands wrote (one that is missing is skipped: its "
                   "build wrote none yet)")
        ->required();
  }

  int run() override {
    std::error_code error;
    std::string database;
    if (fs::exists(m_database, error)) {
      const std::optional<std::string> text = read_text_file(m_database);
      if (!text) return fail(k_exit_bad_input, m_database.string() + ": cannot read the compilation database");
      database = *text;
    }
    std::vector<std::string> fragments;
    std::vector<std::string> names = {m_database.string()};
    for (const fs::path& fragment : m_fragments) {
      if (!fs::exists(fragment, error)) continue;
      const std::optional<std::string> text = read_text_file(fragment);
      if (!text) return fail(k_exit_bad_input, fragment.string() + ": cannot read the compilation database");
      fragments.push_back(*text);
      names.push_back(fragment.string());
    }
    const Result<std::string> merged = build::merged_database(database, fragments, names);
    if (!merged) return fail(k_exit_bad_input, merged.error().message);
    if (Status s = build::write_if_changed(m_database, *merged); !s) return fail(k_exit_environment, s.error().message);
    return k_exit_ok;
  }

private:
  static int fail(int code, const std::string& message) {
    std::cerr << diagnostic(Error{message}) << "\n";
    return code;
  }

  fs::path m_database;
  std::vector<fs::path> m_fragments;
};

}  // namespace

std::unique_ptr<Command> make_compile_commands_command() { return std::make_unique<CompileCommandsCommand>(); }

}  // namespace kiln::cli

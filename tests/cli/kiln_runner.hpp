// Runs the real kiln executable, and scratch copies of fixture projects for it to work on.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace kiln::test {

// kiln's exit codes (docs/cli.md, "Exit codes").
constexpr int k_failed = 1;       // the build ran and something failed
constexpr int k_usage = 2;        // the command line is wrong
constexpr int k_bad_input = 3;    // a manifest or package is wrong
constexpr int k_environment = 4;  // the machine lacks something (a compiler, a writable directory)

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `kiln <args>` in `cwd` (each argument is shell-quoted), with `env` ("NAME=value") added to the
// environment. Unless `env` sets KILN_CACHE_DIR, it is default_cache_dir(cwd): tests never touch the
// user's cache. A run that takes longer than `timeout_seconds` is killed and exits with 124.
constexpr int k_timed_out = 124;
RunResult run_kiln(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                   const std::vector<std::string>& env = {}, int timeout_seconds = 900);

// The cache of every kiln run in `cwd` that names no other: a scratch directory of its own.
std::filesystem::path default_cache_dir(const std::filesystem::path& cwd);

// A fresh directory under the system temp directory, removed with its contents when destroyed.
class ScratchDir {
public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }
  // Copies fixture project `name` (tests/fixtures/projects/<name>) to path()/dest and returns it.
  std::filesystem::path copy_project(const std::string& name, const std::string& dest = "project") const;

private:
  std::filesystem::path m_path;
};

std::filesystem::path project_fixture(const std::string& name);
std::filesystem::path example_dir(const std::string& name);
std::vector<std::byte> read_bytes(const std::filesystem::path& path);
void write_bytes(const std::filesystem::path& path, const std::vector<std::byte>& bytes);
std::string read_text(const std::filesystem::path& path);
void write_text(const std::filesystem::path& path, const std::string& text);

// How many times `what` occurs in `text` (overlapping occurrences count): how often the build said it.
inline std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace kiln::test

// A throw-away project directory for manifest tests: source files and include directories must exist
// on disk for the reader to accept them. Each instance gets its own directory, removed afterwards.
#pragma once

#include "manifest/manifest_reader.hpp"
#include "util/diagnostic.hpp"

#include <gtest/gtest.h>

#include <unistd.h>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <string>
#include <string_view>

namespace kiln::manifest::testing {

class TempProject {
public:
  TempProject() {
    // pid + counter + random: unique across parallel ctest processes and within one test binary.
    static std::atomic<unsigned> counter{0};
    const std::string unique = std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
                               std::to_string(std::random_device{}());
    m_root = std::filesystem::temp_directory_path() / ("kiln-manifest-test-" + unique) / "proj";
    std::filesystem::create_directories(m_root);
  }
  ~TempProject() {
    std::error_code ignored;
    std::filesystem::remove_all(m_root.parent_path(), ignored);
  }
  TempProject(const TempProject&) = delete;
  TempProject& operator=(const TempProject&) = delete;

  const std::filesystem::path& root() const { return m_root; }
  std::filesystem::path manifest_path() const { return m_root / "kiln.toml"; }

  // Writes `content` to `relative`, creating its directories.
  void write(std::string_view relative, std::string_view content = "// test\n") const {
    const std::filesystem::path file = m_root / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << content;
  }
  void make_dir(std::string_view relative) const { std::filesystem::create_directories(m_root / relative); }

  // Writes kiln.toml and reads it back through the public entry point.
  Result<Manifest> read(std::string_view toml) const {
    write("kiln.toml", toml);
    return read_manifest(manifest_path());
  }

  // "<root>/kiln.toml:<line>: " — the exact prefix of an error on that line.
  std::string at(int line) const { return manifest_path().string() + ":" + std::to_string(line) + ": "; }

private:
  std::filesystem::path m_root;
};

// `message` with its columns and "error: " dropped ("kiln.toml:3:9: error: x" -> "kiln.toml:3: x"), so
// tests about what an error says can name just its line (TempProject::at). Tests of the format itself
// (manifest_positions_test.cpp) look at the message as it is.
inline std::string without_columns(const std::string& message) {
  static const std::regex column(R"(:(\d+):\d+: error: )");
  static const std::regex file_only(R"(: error: )");
  return std::regex_replace(std::regex_replace(message, column, ":$1: "), file_only, ": ");
}

// Passes when `result` failed with errors that, as `kiln build` prints them (util/diagnostic.hpp),
// contain `expected` (as it is, or without columns); prints them all if not.
inline ::testing::AssertionResult fails_with(const Result<Manifest>& result, std::string_view expected) {
  if (result.ok()) return ::testing::AssertionFailure() << "read succeeded; expected error: " << expected;
  const std::string printed = diagnostic(result.error());
  if (printed.find(expected) == std::string::npos && without_columns(printed).find(expected) == std::string::npos) {
    return ::testing::AssertionFailure() << "error message\n  " << printed << "\ndoes not contain\n  " << expected;
  }
  return ::testing::AssertionSuccess();
}

// The message without columns (see without_columns), or a test failure if `result` succeeded.
inline std::string error_of(const Result<Manifest>& result) {
  if (result.ok()) {
    ADD_FAILURE() << "read succeeded; an error was expected";
    return {};
  }
  return without_columns(diagnostic(result.error()));
}

}  // namespace kiln::manifest::testing

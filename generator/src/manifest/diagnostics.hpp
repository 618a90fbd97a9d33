// Collects every error found in one manifest so the user can fix them all in one go, then turns them
// into a single Error: one "file:line:col: error: message" per line (as compilers write them, so
// editors jump there), in the order they occur in the file.
// Internal to kiln_manifest.
#pragma once

#include "manifest/manifest.hpp"
#include "util/result.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::manifest::detail {

// A value and where in the manifest it came from, so later checks can point at it.
struct Located {
  std::string text;
  int line = 0;
  int column = 0;
  Position at() const { return {line, column}; }
};

// 'text', as messages show keys and values.
inline std::string quote(std::string_view text) { return "'" + std::string(text) + "'"; }

// Where each key of a list was first seen, for "listed twice (first at line N)" messages.
class FirstSeen {
public:
  // The line `key` was first seen on, or nothing (and `line` is remembered) if this is the first time.
  std::optional<int> add(std::string key, int line) {
    const auto [it, inserted] = m_lines.emplace(std::move(key), line);
    return inserted ? std::nullopt : std::optional<int>(it->second);
  }
  static std::string note(int first_line) { return " (first at line " + std::to_string(first_line) + ")"; }

private:
  std::map<std::string, int> m_lines;
};

class Diagnostics {
public:
  explicit Diagnostics(std::string file) : m_file(std::move(file)) {}

  // line 0: the error belongs to the whole file (no [[source]] at all).
  void error(int line, std::string message) { error(line, 0, std::move(message)); }
  void error(Position at, std::string message) { error(at.line, at.column, std::move(message)); }
  void error(int line, int column, std::string message);

  bool has_errors() const { return !m_entries.empty(); }

  // Moves each error `move` answers for to another place ("CMakeLists.txt", line 12; column 0) with
  // another message: errors about values a kiln_add_cache() call gave are said at the call.
  struct Moved {
    std::string file;
    int line = 0;
    std::string message;
  };
  template <typename Move>
  void move_errors(const Move& move) {
    for (Entry& e : m_entries)
      if (std::optional<Moved> moved = move(e.line, e.column, e.message)) {
        e.file = std::move(moved->file);
        e.line = moved->line;
        e.column = 0;
        e.message = std::move(moved->message);
      }
  }
  // All errors, sorted by position; equal positions keep the order they were reported in.
  Error to_error() const;

private:
  struct Entry {
    int line;
    int column;
    std::string message;
    std::string file = {};   // "": the manifest
  };
  std::string m_file;
  std::vector<Entry> m_entries;
};

}  // namespace kiln::manifest::detail

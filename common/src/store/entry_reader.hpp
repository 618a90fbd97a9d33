// The store's read half (local_store.hpp's layout): reading one entry of a store directory, which is
// all a process that only looks up needs. LocalStore::get is this, and the loader links it alone for
// its direct hits (direct_record.hpp) without the writing half (publication, statistics, eviction).
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::store {

// <directory>/<k0k1>/<key>: entry_path_utf8's text as a path (the layout has that one definition).
std::filesystem::path entry_path(const std::filesystem::path& directory, std::string_view key);
// The same as UTF-8 text, from the directory as UTF-8 text.
std::string entry_path_utf8(std::string_view directory_utf8, std::string_view key);

// The payload stored under `key` in the store at `directory`, or nothing: absent, damaged, not a
// regular file or too large to be an entry (store.hpp's Store::get). A hit counts as a use for
// eviction: the entry's modification time is set when it is older than a minute.
std::optional<std::vector<std::byte>> read_entry(const std::filesystem::path& directory, std::string_view key);
// The same for the directory as UTF-8 text: on POSIX the entry's path is never a
// std::filesystem::path, whose parsing a run-time cache hit in a fresh process would page in and pay.
std::optional<std::vector<std::byte>> read_entry_utf8(std::string_view directory_utf8, std::string_view key);

// An entry's file read into memory of its own (not zeroed before the read), and its payload, a view
// into that memory at its start (aligned as operator new aligns).
struct SharedEntry {
  std::shared_ptr<const std::byte[]> file;
  std::span<const std::byte> payload;
};
// read_entry_utf8's lookup without moving the payload out of the file's bytes: for the loader's
// direct hits, which keep a payload as long as a kernel loaded from it.
std::optional<SharedEntry> read_shared_entry_utf8(std::string_view directory_utf8, std::string_view key);

}  // namespace kiln::store

#include "store/local_store.hpp"

#include "store/entry_format.hpp"
#include "store/entry_reader.hpp"
#include "store/harvest_record.hpp"
#include "util/file_io.hpp"
#include "store/stats_file.hpp"
#include "util/file_io.hpp"
#include "util/scratch_names.hpp"

#include "platform/files.hpp"
#include "platform/text.hpp"

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <system_error>

namespace kiln::store {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_cachedir_tag =
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by kiln (ahead-of-time CUDA kernel packages).\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n";

struct Entry {
  fs::path path;
  std::uint64_t bytes = 0;
  std::int64_t used_ns = 0;
};

bool is_shard_name(const fs::path& path) {
  const std::string name = platform::utf8_of(path.filename());
  return name.size() == 2 && valid_key(name + std::string(30, '0'));
}

// Every entry file of the store, with its size and last use. A shard that is a symbolic link is not
// the store's (the store makes directories), and following it would leave the store's directory.
std::vector<Entry> list_entries(const fs::path& directory) {
  std::vector<Entry> entries;
  std::error_code ec;
  for (fs::directory_iterator dir(directory, ec), end; !ec && dir != end; dir.increment(ec)) {
    std::error_code link;
    if (!is_shard_name(dir->path()) || dir->is_symlink(link) || link) continue;
    std::error_code inner;
    for (fs::directory_iterator file(dir->path(), inner), stop; !inner && file != stop; file.increment(inner)) {
      if (!valid_key(platform::utf8_of(file->path().filename()))) continue;
      platform::FileStatus info;
      if (!platform::status_of(file->path(), info) || !info.is_regular) continue;
      entries.push_back({file->path(), info.size, info.mtime_ns});
    }
  }
  return entries;
}

// The writers' temporaries left by processes that are gone, in tmp/ only when it is the store's own
// directory, not a link that leads out of it.
void remove_stale_writes(const fs::path& directory) {
  std::error_code ec;
  if (fs::is_symlink(directory / "tmp", ec)) return;
  remove_stale_temporaries(directory / "tmp");
}

bool older(const Entry& a, const Entry& b) {
  if (a.used_ns != b.used_ns) return a.used_ns < b.used_ns;
  return a.path < b.path;
}

}  // namespace

LocalStore::LocalStore(fs::path directory, std::uint64_t max_size)
    : m_directory(std::move(directory)), m_max_size(max_size) {}

Status LocalStore::check_writable() const {
  std::error_code ec;
  fs::create_directories(m_directory / "tmp", ec);
  if (ec) return fail(KILN_STATUS_IO_ERROR, ec.message());
  if (!platform::directory_writable(m_directory / "tmp")) return fail(KILN_STATUS_IO_ERROR, std::strerror(errno));
  return {};
}

fs::path LocalStore::entry_path(std::string_view key) const { return store::entry_path(m_directory, key); }

std::optional<std::vector<std::byte>> LocalStore::get(std::string_view key) { return read_entry(m_directory, key); }

void LocalStore::put(std::string_view key, std::span<const std::byte> value) {
  if (!valid_key(key) || value.size() > k_max_payload_size) return;
  std::error_code ec;
  if (!fs::exists(m_directory / "CACHEDIR.TAG", ec)) {
    fs::create_directories(m_directory, ec);
    publish_file(m_directory, m_directory / "CACHEDIR.TAG",
                 std::as_bytes(std::span(k_cachedir_tag.data(), k_cachedir_tag.size())));
  }
  // What killed writers left (those of live writers stay), once per store that writes.
  std::call_once(m_stale_removed, [this] { remove_stale_writes(m_directory); });
  const fs::path path = entry_path(key);
  platform::FileStatus old;
  const bool replaced = platform::status_of(path, old);
  const std::vector<std::byte> bytes = encode_entry(key, value);
  if (!publish_file(m_directory, path, bytes)) return;
  bool over = false;
  (void)update_stats(m_directory, [&](Counters& c) {   // counters are best effort: a failure skips them
    const std::uint64_t grown = c["size"] + bytes.size();
    c["size"] = grown - (replaced ? std::min<std::uint64_t>(grown, old.size) : 0);
    if (!replaced) ++c["entries"];
    over = m_max_size > 0 && c["size"] > m_max_size;
  });
  if (over) trim(m_max_size / 10 * 9);
}

void LocalStore::add_counters(const Counters& counters) {
  bool any = false;
  for (const auto& [name, value] : counters) any = any || value != 0;
  if (!any) return;
  (void)update_stats(m_directory, [&](Counters& c) {
    for (const auto& [name, value] : counters) c[name] += value;
  });
}

Counters LocalStore::counters() const { return read_stats(m_directory); }

Usage LocalStore::usage() const {
  Usage usage;
  for (const Entry& e : list_entries(m_directory)) {
    ++usage.entries;
    usage.bytes += e.bytes;
  }
  return usage;
}

Usage LocalStore::trim(std::uint64_t limit) {
  remove_stale_writes(m_directory);
  Usage removed;
  (void)update_stats(m_directory, [&](Counters& c) {
    std::vector<Entry> entries = list_entries(m_directory);
    std::sort(entries.begin(), entries.end(), older);
    std::uint64_t total = 0;
    for (const Entry& e : entries) total += e.bytes;
    for (const Entry& e : entries) {
      if (limit == 0 || total <= limit) break;
      std::error_code ec;
      if (!fs::remove(e.path, ec)) continue;
      total -= e.bytes;
      ++removed.entries;
      removed.bytes += e.bytes;
    }
    c["size"] = total;
    c["entries"] = entries.size() - removed.entries;
  });
  return removed;
}

LocalStore::Cleared LocalStore::clear() {
  Cleared cleared;
  const auto failed = [&](const fs::path& path, const std::string& why) {
    cleared.failures.push_back(platform::utf8_of(path) + ": " + why);
  };
  const auto remove_all = [&] {
    std::error_code ec;
    for (fs::directory_iterator dir(m_directory, ec), end; !ec && dir != end; dir.increment(ec)) {
      std::error_code link;
      if (is_shard_name(dir->path()) && dir->is_symlink(link) && !fs::remove(dir->path(), link))
        failed(dir->path(), "cannot remove this symbolic link: " + link.message());
    }
    for (const Entry& e : list_entries(m_directory)) {
      std::error_code error;
      if (!fs::remove(e.path, error)) {
        if (error) failed(e.path, "cannot remove it: " + error.message());
        continue;   // else another process removed it first
      }
      ++cleared.removed.entries;
      cleared.removed.bytes += e.bytes;
    }
    // The harvest records go too: a cleared cache has nothing to harvest. A link where the folder
    // should be is removed as a link, never followed (as a shard's).
    const fs::path harvest = harvest_directory(m_directory);
    std::error_code link;
    if (fs::is_symlink(harvest, link)) {
      if (!fs::remove(harvest, link)) failed(harvest, "cannot remove this symbolic link: " + link.message());
      return;
    }
    std::error_code listing;
    for (fs::directory_iterator dir(harvest, listing), end; !listing && dir != end; dir.increment(listing)) {
      std::error_code error;
      if (fs::remove(dir->path(), error)) ++cleared.harvest_records;
      else if (error) failed(dir->path(), "cannot remove it: " + error.message());
    }
  };
  if (const Status locked = update_stats(m_directory, [&](Counters& c) {
        remove_all();
        c.clear();
      });
      !locked.ok()) {
    failed(m_directory / "stats.lock", "cannot lock the counters to zero them: " + locked.error().message);
    remove_all();
  }
  remove_stale_writes(m_directory);
  return cleared;
}

}  // namespace kiln::store

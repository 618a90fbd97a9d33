#include "store/direct_record.hpp"

#include "store/record_bytes.hpp"

#include "format/checksum.hpp"
#include "platform/text.hpp"
#include "util/hasher.hpp"

#include <cstring>

namespace kiln::store {

namespace {

// What decides which compile library the loader would load (KILN_JIT_LIBRARY: the record also holds
// the identity of the file that wrote it) and which NVRTC and nvJitLink it finds
// (jit/src/nvrtc/compiler_loader.hpp), besides the registered directories.
constexpr const char* k_search_variables[] = {"KILN_JIT_LIBRARY", "KILN_NVRTC", "KILN_NVJITLINK", "CUDA_PATH", "CUDA_HOME",
#if defined(_WIN32)
                                              "PATH",
#else
                                              "LD_LIBRARY_PATH",
#endif
};

void add(std::string& text, std::string_view tag, std::string_view value) {
  text.append(tag).append(" ").append(std::to_string(value.size())).append(":").append(value).append("\n");
}

std::uint64_t hash_of(std::string_view text) {
  return format::checksum(std::as_bytes(std::span(text.data(), text.size())));
}

}  // namespace

std::string direct_query(const DirectQuery& query) {
  std::string text;
  text.reserve(512);   // the usual query in one allocation: it is built on every hit
  add(text, "package", hex64(query.package_checksum) + " " + std::to_string(query.package_size));
  add(text, "name", query.name);
  add(text, "target", query.target);
  for (const std::string& directory : query.search_directories) add(text, "directory", directory);
  for (const char* variable : k_search_variables) {
    if (const char* value = platform::environment(variable)) add(text, variable, value);   // unset and empty differ
  }
  return text;
}

std::string direct_key(std::string_view query) {
  // Two hashes of the query, for the 32 digits the store names entries by. The record holds the
  // query, which the reader compares whole: a key that two queries share is a miss, never a wrong hit.
  return hex64(hash_of(query)) + hex64(hash_of(std::string(query) + "direct"));
}

FileIdentity identity_of(const std::string& path) {
  FileIdentity identity;
  identity.path = path;
  identity.present = platform::status_of_utf8(path.c_str(), identity.status);
  return identity;
}

bool settled(const FileIdentity& file, std::int64_t now_ns) {
  return !file.present || (file.status.mtime_ns <= now_ns - k_settle_ns && file.status.ctime_ns <= now_ns - k_settle_ns);
}

bool files_unchanged(const DirectRecord& record) {
  for (const FileIdentity& recorded : record.files) {
    const FileIdentity now = identity_of(recorded.path);
    const platform::FileStatus& a = now.status;
    const platform::FileStatus& b = recorded.status;
    if (now.present != recorded.present) return false;
    if (now.present && (a.size != b.size || a.mtime_ns != b.mtime_ns || a.ctime_ns != b.ctime_ns ||
                        a.device != b.device || a.file != b.file))
      return false;
  }
  return true;
}

std::string encode_direct_record(const DirectRecord& record) {
  std::string out(k_direct_record_magic);
  put_number(out, std::uint16_t{0});
  put_number(out, static_cast<std::uint64_t>(record.package.size()));
  out.append(reinterpret_cast<const char*>(record.package.data()), record.package.size());
  put_string(out, record.query);
  put_string(out, record.entry_key);
  put_string(out, record.expression);
  put_number(out, static_cast<std::uint32_t>(record.files.size()));
  for (const FileIdentity& f : record.files) {
    const platform::FileStatus none;
    const platform::FileStatus& s = f.present ? f.status : none;
    put_number(out, static_cast<std::uint32_t>(f.present));
    put_number(out, s.size);
    put_number(out, s.mtime_ns);
    put_number(out, s.ctime_ns);
    put_number(out, s.device);
    put_number(out, s.file);
    put_string(out, f.path);
  }
  return out;
}

std::optional<DirectRecord> decode_direct_record(std::span<const std::byte> bytes) {
  if (bytes.size() < k_direct_record_magic.size() ||
      std::memcmp(bytes.data(), k_direct_record_magic.data(), k_direct_record_magic.size()) != 0)
    return std::nullopt;
  RecordCursor in{bytes.subspan(k_direct_record_magic.size())};
  DirectRecord record;
  const auto padding = in.take<std::uint16_t>();
  const auto package_size = in.take<std::uint64_t>();
  if (!in.ok || padding != 0 || package_size == 0 || package_size > in.rest.size()) return std::nullopt;
  record.package = in.rest.first(static_cast<std::size_t>(package_size));
  in.rest = in.rest.subspan(static_cast<std::size_t>(package_size));
  record.query = in.take_string();
  record.entry_key = in.take_string();
  record.expression = in.take_string();
  const std::uint32_t count = in.take<std::uint32_t>();
  bool any_file = false;
  for (std::uint32_t i = 0; in.ok && i < count; ++i) {
    FileIdentity f;
    const std::uint32_t present = in.take<std::uint32_t>();
    f.status.size = in.take<std::uint64_t>();
    f.status.mtime_ns = in.take<std::int64_t>();
    f.status.ctime_ns = in.take<std::int64_t>();
    f.status.device = in.take<std::uint64_t>();
    f.status.file = in.take<std::uint64_t>();
    f.path = in.take_string();
    f.present = present == 1;
    if (present > 1) in.ok = false;
    any_file = any_file || f.present;
    record.files.push_back(std::move(f));
  }
  if (!in.ok || !in.rest.empty() || record.entry_key.size() != 32 || !any_file) return std::nullopt;
  return record;
}

}  // namespace kiln::store

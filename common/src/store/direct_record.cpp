#include "store/direct_record.hpp"

#include "platform/text.hpp"
#include "util/hasher.hpp"

#include <charconv>

namespace kiln::store {

namespace {

// What decides which NVRTC and nvJitLink the compile library finds (jit/src/nvrtc/compiler_loader.hpp),
// besides the registered directories.
constexpr const char* k_search_variables[] = {"KILN_NVRTC", "KILN_NVJITLINK", "CUDA_PATH", "CUDA_HOME",
#if defined(_WIN32)
                                              "PATH",
#else
                                              "LD_LIBRARY_PATH",
#endif
};

// The next space-separated field of `line`, which loses it and the space; nothing if none is left.
std::optional<std::string_view> next_field(std::string_view& line) {
  const std::size_t space = line.find(' ');
  if (space == std::string_view::npos || space == 0) return std::nullopt;
  const std::string_view field = line.substr(0, space);
  line.remove_prefix(space + 1);
  return field;
}

template <typename Number>
bool parse(std::optional<std::string_view> field, Number& value) {
  if (!field) return false;
  const auto [end, ec] = std::from_chars(field->data(), field->data() + field->size(), value);
  return ec == std::errc{} && end == field->data() + field->size();
}

// `line` without its leading `word` and a space, or nothing.
std::optional<std::string_view> after(std::string_view line, std::string_view word) {
  if (line.size() <= word.size() || line.compare(0, word.size(), word) != 0 || line[word.size()] != ' ')
    return std::nullopt;
  return line.substr(word.size() + 1);
}

bool same(const platform::FileStatus& a, const platform::FileStatus& b) {
  return a.size == b.size && a.mtime_ns == b.mtime_ns && a.ctime_ns == b.ctime_ns && a.device == b.device &&
         a.file == b.file;
}

}  // namespace

std::string direct_key(const DirectQuery& query) {
  Hasher h(Hasher::Dump::skip);
  h.add("schema", k_direct_record_magic);
  h.add("package", hex64(query.package_checksum) + " " + std::to_string(query.package_size));
  h.add("name", query.name);
  h.add("target", query.target);
  h.add("directories.count", std::to_string(query.search_directories.size()));
  for (const std::string& directory : query.search_directories) h.add("directory", directory);
  for (const char* variable : k_search_variables) {
    const char* value = platform::environment(variable);
    h.add(variable, value ? std::string("=") + value : std::string());   // unset and empty differ
  }
  return h.hex_digest();
}

FileIdentity identity_of(const std::string& path) {
  FileIdentity identity;
  identity.path = path;
  identity.present = platform::status_of(platform::path_of_utf8(path), identity.status);
  return identity;
}

bool settled(const FileIdentity& file, std::int64_t now_ns) {
  return !file.present || (file.status.mtime_ns <= now_ns - k_settle_ns && file.status.ctime_ns <= now_ns - k_settle_ns);
}

bool files_unchanged(const DirectRecord& record) {
  for (const FileIdentity& recorded : record.files) {
    const FileIdentity now = identity_of(recorded.path);
    if (now.present != recorded.present || (now.present && !same(now.status, recorded.status))) return false;
  }
  return true;
}

std::string encode_direct_record(const DirectRecord& record) {
  std::string text = std::string(k_direct_record_magic) + "\nentry " + record.entry_key + "\nexpression " +
                     record.expression + "\n";
  for (const FileIdentity& f : record.files) {
    if (!f.present) {
      text += "absent " + f.path + "\n";
      continue;
    }
    const platform::FileStatus& s = f.status;
    text += "file " + std::to_string(s.size) + " " + std::to_string(s.mtime_ns) + " " + std::to_string(s.ctime_ns) +
            " " + std::to_string(s.device) + " " + std::to_string(s.file) + " " + f.path + "\n";
  }
  return text;
}

std::optional<DirectRecord> decode_direct_record(std::string_view text) {
  const auto next_line = [&text]() -> std::optional<std::string_view> {
    if (text.empty()) return std::nullopt;
    const std::size_t end = text.find('\n');
    if (end == std::string_view::npos) return std::nullopt;   // every line ends with one
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end + 1);
    return line;
  };
  DirectRecord record;
  const std::optional<std::string_view> magic = next_line(), entry = next_line(), expression = next_line();
  if (magic != std::optional<std::string_view>(k_direct_record_magic) || !entry || !expression) return std::nullopt;
  const std::optional<std::string_view> key = after(*entry, "entry");
  const std::optional<std::string_view> compiled = after(*expression, "expression");
  if (!key || key->size() != 32 || !compiled) return std::nullopt;
  record.entry_key = std::string(*key);
  record.expression = std::string(*compiled);
  while (std::optional<std::string_view> line = next_line()) {
    FileIdentity f;
    if (const std::optional<std::string_view> path = after(*line, "absent")) {
      f.path = std::string(*path);
    } else if (std::optional<std::string_view> rest = after(*line, "file")) {
      platform::FileStatus& s = f.status;
      if (!parse(next_field(*rest), s.size) || !parse(next_field(*rest), s.mtime_ns) ||
          !parse(next_field(*rest), s.ctime_ns) || !parse(next_field(*rest), s.device) ||
          !parse(next_field(*rest), s.file) || rest->empty())
        return std::nullopt;
      f.present = true;
      f.path = std::string(*rest);   // the rest of the line: a path may hold spaces
    } else {
      return std::nullopt;
    }
    record.files.push_back(std::move(f));
  }
  // A record names the compiler it was made with: one that names no file could never see a change.
  bool any_file = false;
  for (const FileIdentity& f : record.files) any_file = any_file || f.present;
  if (!any_file) return std::nullopt;
  return record;
}

}  // namespace kiln::store

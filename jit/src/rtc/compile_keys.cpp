#include "rtc/compile_keys.hpp"

#include "format/checksum.hpp"
#include "platform/files.hpp"
#include "store/direct_record.hpp"
#include "util/file_io.hpp"
#include "util/hasher.hpp"

#include <charconv>
#include <chrono>
#include <span>
#include <filesystem>
#include <string_view>

namespace kiln::rtc {

namespace fs = std::filesystem;

namespace {

void add_common(Hasher& h, const std::string& kind, const std::string& target, const CompilerIdentity& compiler) {
  h.add("schema", k_runtime_cache_schema);
  h.add("kind", kind);
  h.add("target", target);
  h.add("nvrtc", compiler.nvrtc_version);
  h.add("nvjitlink", compiler.nvjitlink_version);
}

void add_list(Hasher& h, const std::string& tag, const std::vector<std::string>& values) {
  h.add(tag + ".count", std::to_string(values.size()));
  for (const std::string& v : values) h.add(tag, v);
}

// A path made absolute and normal, for comparing where NVRTC found a file with the directories asked.
fs::path normal(const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  return (ec ? path : absolute).lexically_normal();
}

// `path` relative to `dir` when it is inside it.
std::optional<std::string> inside(const fs::path& path, const fs::path& dir) {
  const fs::path relative = path.lexically_relative(dir);
  if (relative.empty() || *relative.begin() == "..") return std::nullopt;
  return relative.generic_string();
}

// A file's size and modification time; false when it cannot be stat'ed.
// The file's identity and times into `record`, before its content is hashed (a change after this
// shows at the next check); false when it is not there.
bool stamp_of(const fs::path& path, HeaderRecord& record) {
  platform::FileStatus st;
  if (!platform::status_of(path, st) || !st.is_regular) return false;
  record.size = st.size;
  record.mtime_ns = st.mtime_ns;
  record.ctime_ns = st.ctime_ns;
  record.device = st.device;
  record.file = st.file;
  const std::int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::system_clock::now().time_since_epoch()).count();
  record.stat_trusted = st.mtime_ns <= now_ns - store::k_settle_ns && st.ctime_ns <= now_ns - store::k_settle_ns;
  return true;
}

}  // namespace

fs::path program_directory(const ProgramRequest& request) {
  return normal(fs::path(request.name)).parent_path();
}

std::string carried_key(const CarriedInputs& inputs, const std::string& expression, const std::string& target,
                        const CompilerIdentity& compiler) {
  Hasher h(Hasher::Dump::skip);
  add_common(h, "carried", target, compiler);
  h.add("program", inputs.program);
  // An input of its own: entries compiled before run-time compiles passed it miss.
  h.add("random_seed", carried_random_seed(inputs));
  h.add("source", hex64(inputs.source_hash));
  h.add("headers.count", std::to_string(inputs.headers.size()));
  for (const CarriedFileRef& header : inputs.headers) {
    h.add("header", header.path);
    h.add("header.hash", std::as_bytes(std::span(&header.content_hash, 1)));
  }
  add_list(h, "include_dir", inputs.include_dirs);
  add_list(h, "option", inputs.options);
  add_list(h, "link_option", inputs.link_options);
  h.add("expression", expression);
  return h.hex_digest();
}

std::string program_request_key(const ProgramRequest& request, const std::string& target,
                                const CompilerIdentity& compiler) {
  Hasher h(Hasher::Dump::skip);
  add_common(h, "program", target, compiler);
  // The name is NVRTC's program name (in messages and internal symbols); a path's directory is not
  // an input (the headers beside it are recorded by content), its file name is.
  h.add("name", fs::path(request.name).filename().string());
  h.add("source", request.source);
  h.add("headers.count", std::to_string(request.headers.size()));
  for (const auto& [name, text] : request.headers) {
    h.add("header.name", name);
    h.add("header.text", text);
  }
  h.add("include_dirs.count", std::to_string(request.include_dirs.size()));   // their number, not their paths
  add_list(h, "option", request.options);
  add_list(h, "kernel", request.kernels);
  add_list(h, "global", request.globals);
  return h.hex_digest();
}

std::optional<std::vector<HeaderRecord>> locate_headers(const ProgramRequest& request,
                                                        const std::vector<std::string>& opened) {
  std::vector<fs::path> dirs;
  for (const std::string& d : request.include_dirs) dirs.push_back(normal(d));
  const fs::path beside = program_directory(request);
  std::vector<HeaderRecord> records;
  for (const std::string& name : opened) {
    bool in_memory = false;
    for (const auto& header : request.headers) in_memory = in_memory || header.first == name;
    if (in_memory) continue;
    HeaderRecord record;
    const fs::path path = normal(name);
    for (std::uint32_t i = 0; i < dirs.size() && record.path.empty(); ++i) {
      if (std::optional<std::string> relative = inside(path, dirs[i])) {
        record = HeaderRecord{HeaderOrigin::include_dir, i, *relative, 0};
      }
    }
    if (record.path.empty()) {
      if (std::optional<std::string> relative = inside(path, beside)) {
        record = HeaderRecord{HeaderOrigin::beside_program, 0, *relative, 0};
      } else {
        record = HeaderRecord{HeaderOrigin::absolute, 0, path.string(), 0};
      }
    }
    if (!stamp_of(path, record)) return std::nullopt;
    if (record.origin == HeaderOrigin::include_dir) {
      std::error_code ec;
      const auto absent = [&](const fs::path& place) { return !fs::exists(place, ec) && !ec; };
      for (std::uint32_t earlier = 0; earlier < record.index && earlier < 63; ++earlier)
        if (absent(dirs[earlier] / record.path)) record.shadows |= std::uint64_t{1} << earlier;
      if (beside / record.path != dirs[record.index] / record.path && absent(beside / record.path))
        record.shadows |= k_shadow_beside;
    }
    const std::optional<std::uint64_t> hash = file_content_hash(path.string());
    if (!hash) return std::nullopt;
    record.content_hash = *hash;
    records.push_back(std::move(record));
  }
  return records;
}

std::string encode_header_records(const std::vector<HeaderRecord>& records) {
  std::string text = "kiln-headers 3\n";
  for (const HeaderRecord& r : records) {
    text += std::to_string(static_cast<std::uint32_t>(r.origin)) + " " + std::to_string(r.index) + " " +
            hex64(r.content_hash) + " " + std::to_string(r.size) + " " + std::to_string(r.mtime_ns) + " " +
            std::to_string(r.ctime_ns) + " " + std::to_string(r.device) + " " + std::to_string(r.file) + " " +
            (r.stat_trusted ? "1" : "0") + " " + hex64(r.shadows) + " " + r.path + "\n";
  }
  return text;
}

namespace {

// The next space-separated field of `line`, which loses it and the space; nothing if none is left.
std::optional<std::string_view> next_field(std::string_view& line) {
  const std::size_t space = line.find(' ');
  if (space == std::string_view::npos || space == 0) return std::nullopt;
  const std::string_view field = line.substr(0, space);
  line.remove_prefix(space + 1);
  return field;
}

template <typename Number>
bool parse(std::optional<std::string_view> field, Number& value, int base = 10) {
  if (!field) return false;
  const auto [end, ec] = std::from_chars(field->data(), field->data() + field->size(), value, base);
  return ec == std::errc{} && end == field->data() + field->size();
}

}  // namespace

// Parsed by hand, not with streams: a hit decodes the record of every header (about 600 for CUB).
std::optional<std::vector<HeaderRecord>> decode_header_records(const std::string& text) {
  std::string_view rest = text;
  const auto next_line = [&rest]() -> std::optional<std::string_view> {
    if (rest.empty()) return std::nullopt;
    const std::size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    return line;
  };
  if (next_line() != std::optional<std::string_view>("kiln-headers 3")) return std::nullopt;
  std::vector<HeaderRecord> records;
  while (std::optional<std::string_view> line = next_line()) {
    HeaderRecord r;
    std::uint32_t origin = 0;
    const std::optional<std::string_view> origin_field = next_field(*line);
    const std::optional<std::string_view> index_field = next_field(*line);
    const std::optional<std::string_view> hash_field = next_field(*line);
    const std::optional<std::string_view> size_field = next_field(*line);
    const std::optional<std::string_view> mtime_field = next_field(*line);
    const std::optional<std::string_view> ctime_field = next_field(*line);
    const std::optional<std::string_view> device_field = next_field(*line);
    const std::optional<std::string_view> file_field = next_field(*line);
    const std::optional<std::string_view> trusted_field = next_field(*line);
    const std::optional<std::string_view> shadows_field = next_field(*line);
    std::uint32_t trusted = 0;
    if (!parse(origin_field, origin) || origin > 2 || !parse(index_field, r.index) || !hash_field ||
        hash_field->size() != 16 || !parse(hash_field, r.content_hash, 16) || !parse(size_field, r.size) ||
        !parse(mtime_field, r.mtime_ns) || !parse(ctime_field, r.ctime_ns) || !parse(device_field, r.device) ||
        !parse(file_field, r.file) || !parse(trusted_field, trusted) || trusted > 1 || !shadows_field ||
        shadows_field->size() != 16 || !parse(shadows_field, r.shadows, 16) || line->empty()) {
      return std::nullopt;
    }
    r.stat_trusted = trusted == 1;
    r.origin = static_cast<HeaderOrigin>(origin);
    r.path = std::string(*line);   // the rest of the line: a path may hold spaces
    records.push_back(std::move(r));
  }
  return records;
}

std::string program_entry_key(const std::string& request_key, const std::vector<HeaderRecord>& records) {
  Hasher h(Hasher::Dump::skip);
  h.add("schema", k_runtime_cache_schema);
  h.add("request", request_key);
  h.add("headers.count", std::to_string(records.size()));
  for (const HeaderRecord& r : records) {
    // Where a header was found counts by origin and relative path only: a moved project still hits.
    const std::string where = r.origin == HeaderOrigin::absolute ? std::string("absolute") : std::to_string(r.index);
    h.add("header", std::to_string(static_cast<std::uint32_t>(r.origin)) + " " + where + " " +
                        (r.origin == HeaderOrigin::absolute ? std::string() : r.path) + " " + hex64(r.content_hash));
  }
  return h.hex_digest();
}

std::optional<std::uint64_t> file_content_hash(const std::string& path) {
  Result<std::vector<std::byte>> bytes = read_binary_file(path);
  if (!bytes) return std::nullopt;
  return format::checksum(*bytes);
}

}  // namespace kiln::rtc

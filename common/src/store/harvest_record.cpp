#include "store/harvest_record.hpp"

#include "store/record_bytes.hpp"
#include "store/size_spec.hpp"

#include "format/checksum.hpp"
#include "util/file_io.hpp"
#include "util/hasher.hpp"

#include <algorithm>
#include <cstring>
#include <system_error>

namespace kiln::store {

namespace fs = std::filesystem;

namespace {

std::uint64_t checksum_of(std::span<const std::byte> bytes) { return format::checksum(bytes); }

// Names and paths go into a manifest and onto the terminal: no control characters, ever.
bool plain(std::string_view text) {
  return std::none_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  });
}

bool is_record_name(const std::string& name) {
  return name.size() == 32 && std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

}  // namespace

fs::path harvest_directory(const fs::path& cache_directory) { return cache_directory / "harvest"; }

std::string harvest_file_name(const HarvestRecord& record) {
  Hasher hasher(Hasher::Dump::skip);
  hasher.add("harvest", "1");
  hasher.add("package", hex64(record.package_checksum));
  hasher.add("expression", record.expression);
  hasher.add("asked", record.asked);
  hasher.add("source", record.source);
  hasher.add("target", record.target);
  return hasher.hex_digest();
}

std::string encode_harvest_record(const HarvestRecord& record) {
  std::string out(k_harvest_magic);
  for (const std::string* field : {&record.asked, &record.expression, &record.source, &record.target,
                                   &record.package_file, &record.package_name})
    put_string(out, *field);
  put_number(out, record.package_checksum);
  put_number(out, checksum_of(std::as_bytes(std::span(out.data(), out.size()))));
  return out;
}

std::optional<HarvestRecord> decode_harvest_record(std::span<const std::byte> bytes) {
  if (bytes.size() > k_max_harvest_record_size || bytes.size() < k_harvest_magic.size() + sizeof(std::uint64_t))
    return std::nullopt;
  if (std::memcmp(bytes.data(), k_harvest_magic.data(), k_harvest_magic.size()) != 0) return std::nullopt;
  const std::span<const std::byte> body = bytes.first(bytes.size() - sizeof(std::uint64_t));
  std::uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + body.size(), sizeof stored);
  if (stored != checksum_of(body)) return std::nullopt;
  RecordCursor cursor{body.subspan(k_harvest_magic.size()), k_max_harvest_field};
  HarvestRecord record;
  for (std::string* field : {&record.asked, &record.expression, &record.source, &record.target,
                             &record.package_file, &record.package_name})
    *field = cursor.take_string();
  record.package_checksum = cursor.take<std::uint64_t>();
  if (!cursor.ok || !cursor.rest.empty()) return std::nullopt;
  for (const std::string* field : {&record.asked, &record.expression, &record.source, &record.target}) {
    if (field->empty()) return std::nullopt;
  }
  for (const std::string* field : {&record.asked, &record.expression, &record.source, &record.target,
                                   &record.package_file, &record.package_name}) {
    if (!plain(*field)) return std::nullopt;
  }
  return record;
}

void write_harvest_record(const fs::path& cache_directory, const HarvestRecord& record) {
  if (cache_directory.empty()) return;
  const fs::path directory = harvest_directory(cache_directory);
  const fs::path file = directory / harvest_file_name(record);
  std::error_code ec;
  // The store makes no links: a link where the folder should be would choose where records are written.
  if (fs::is_symlink(directory, ec)) return;
  if (fs::exists(file, ec)) return;   // written before: by this process or another
  const std::string bytes = encode_harvest_record(record);
  // What a reader would refuse (a name with a control character, a field over the bound) is not written.
  if (!decode_harvest_record(std::as_bytes(std::span(bytes.data(), bytes.size())))) return;
  fs::create_directories(directory, ec);
  if (ec) return;
  (void)write_file_atomically(file, std::as_bytes(std::span(bytes.data(), bytes.size())));
}

namespace {

// Warnings of files skipped, the first k_max_harvest_named_skips naming theirs and the rest counted:
// a folder of a hundred thousand strays is one screen, not a hundred thousand lines.
class SkippedFiles {
public:
  explicit SkippedFiles(std::vector<std::string>& warnings) : m_warnings(warnings) {}
  void add(const fs::path& file, std::string_view why) {
    if (m_named < k_max_harvest_named_skips) {
      m_warnings.push_back(file.string() + ": " + std::string(why));
      ++m_named;
    } else {
      ++m_unnamed;
    }
  }
  void finish(const fs::path& directory) {
    if (m_unnamed > 0)
      m_warnings.push_back(directory.string() + ": " + std::to_string(m_unnamed) + " more files skipped (the first " +
                           std::to_string(m_named) + " are named above)");
  }

private:
  std::vector<std::string>& m_warnings;
  std::size_t m_named = 0;
  std::size_t m_unnamed = 0;
};

}  // namespace

HarvestRead read_harvest_records(const fs::path& cache_directory) {
  HarvestRead read;
  const fs::path directory = harvest_directory(cache_directory);
  std::error_code ec;
  if (fs::is_symlink(directory, ec)) {
    read.warnings.push_back(directory.string() + ": a symbolic link, not the cache's folder: not followed, no records read");
    return read;
  }
  if (!fs::is_directory(directory, ec)) return read;   // nothing compiled at run time yet
  std::vector<fs::path> files;
  std::size_t entries = 0;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    // Every entry counts, those skipped unread too: listing a folder of strays costs time as well.
    if (entries++ == k_max_harvest_records) {
      read.warnings.push_back(directory.string() + ": more than " + std::to_string(k_max_harvest_records) +
                              " entries; the rest are not read");
      break;
    }
    const std::string name = it->path().filename().string();
    if (name.front() == '.') continue;   // a writer's temporary file
    files.push_back(it->path());
  }
  if (ec) read.warnings.push_back(directory.string() + ": cannot list: " + ec.message());
  std::sort(files.begin(), files.end());
  SkippedFiles skipped(read.warnings);
  std::size_t bytes_read = 0;
  for (const fs::path& file : files) {
    if (!is_record_name(file.filename().string())) {
      skipped.add(file, "not a harvest record (its name is not a record's); skipped");
      continue;
    }
    if (bytes_read >= k_max_harvest_bytes) {
      read.warnings.push_back(directory.string() + ": more than " + format_size(k_max_harvest_bytes) +
                              " of records; those from " + file.filename().string() + " on are not read");
      break;
    }
    Result<std::vector<std::byte>> bytes = read_regular_file(file, k_max_harvest_record_size, /*follow_link=*/false);
    if (!bytes) {
      skipped.add(file, "skipped: " + bytes.error().message);
      continue;
    }
    bytes_read += bytes->size();
    std::optional<HarvestRecord> record = decode_harvest_record(*bytes);
    if (!record) {
      skipped.add(file, "damaged harvest record; skipped");
      continue;
    }
    read.records.push_back(std::move(*record));
    read.files.push_back(file);
  }
  skipped.finish(directory);
  return read;
}

}  // namespace kiln::store

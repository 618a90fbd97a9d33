#include "rtc/harvest_writer.hpp"

#include "format/layout.hpp"
#include "store/harvest_record.hpp"

#include <cstring>
#include <filesystem>

namespace kiln::rtc {

void write_harvest_note(CompiledCache& cache, const format::PackageReader& reader, std::string_view label,
                        std::string_view request, const std::string& expression, const std::string& source,
                        const std::string& target) {
  const std::filesystem::path directory = cache.directory();
  if (directory.empty()) return;
  format::FileHeader header;
  if (reader.bytes().size() < sizeof header) return;
  std::memcpy(&header, reader.bytes().data(), sizeof header);
  store::HarvestRecord record;
  record.asked = std::string(request);
  record.expression = expression;
  record.source = source;
  record.target = target;
  // The label is how the program opened the package (a path, or a name it chose): its last part only,
  // so that the record names the package without the machine's directories.
  record.package_file = std::filesystem::path(std::string(label)).filename().string();
  if (reader.check_metadata()) {
    if (const std::optional<std::string_view> name = reader.metadata_value("package.name")) record.package_name = *name;
  }
  record.package_checksum = header.toc_checksum;
  store::write_harvest_record(directory, record);
}

}  // namespace kiln::rtc

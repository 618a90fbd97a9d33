// Harvest records: what the run-time fallback compiled from a package's carried sources, kept in
// the cache so that `kiln harvest` can turn it into manifest entries and the next build holds it.
//
// One small file per (package, kernel, target, source) under <cache>/harvest/, named by a hash of
// those fields (never by a name in them), written to a temporary file and renamed into place, so
// that processes sharing a cache never see half a record. The files are data from whoever could
// write the cache: a reader bounds their size and number and checks every field.
//
// Written to disk (change the magic, never the meaning; integers little-endian, strings as a u32
// length and their bytes):
//
//   "kiln-harvest 1\n"
//   string asked                 the name as the program asked it ("scale<double>")
//   string expression            as the runtime resolved it, qualified ("ops::scale<double>")
//   string source                the carried unit's source, relative to the manifest ("kernels/scale.cu")
//   string target                "sm_90"
//   string package_file          the package's file name, without directories ("app.kiln")
//   string package_name          its METADATA package.name (the manifest's name), or empty
//   u64 package_checksum         FileHeader::toc_checksum: the package's content
//   u64 checksum                 XXH3-64 of every byte before it
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::store {

inline constexpr std::string_view k_harvest_magic = "kiln-harvest 1\n";
// Bounds for a reader: a record larger than this, or a field longer, is damaged; a folder with more
// entries than this (records, writers' temporary files and anything else alike) is read up to it,
// and its records up to k_max_harvest_bytes in all (each with a warning); files skipped past the
// first k_max_harvest_named_skips are counted, not named.
inline constexpr std::size_t k_max_harvest_record_size = 16 * 1024;
inline constexpr std::size_t k_max_harvest_field = 4096;
inline constexpr std::size_t k_max_harvest_records = 100'000;
inline constexpr std::size_t k_max_harvest_bytes = 32 << 20;
inline constexpr std::size_t k_max_harvest_named_skips = 20;

struct HarvestRecord {
  std::string asked;
  std::string expression;
  std::string source;
  std::string target;
  std::string package_file;
  std::string package_name;
  std::uint64_t package_checksum = 0;

  friend bool operator==(const HarvestRecord&, const HarvestRecord&) = default;
};

// The directory of a cache's records.
std::filesystem::path harvest_directory(const std::filesystem::path& cache_directory);
// The record's file name: 32 hex digits from its identifying fields.
std::string harvest_file_name(const HarvestRecord& record);

std::string encode_harvest_record(const HarvestRecord& record);
// Nothing when the bytes are not a sound record: wrong magic or checksum, a field too long, empty
// where it must not be, or holding a control character.
std::optional<HarvestRecord> decode_harvest_record(std::span<const std::byte> bytes);

// Writes the record into the cache unless a file of its name is there already (a hit writes
// nothing). Errors are swallowed, as every cache write's: a read-only cache only loses the record.
// A symbolic link where <cache>/harvest should be is never followed: nothing is written.
void write_harvest_record(const std::filesystem::path& cache_directory, const HarvestRecord& record);

struct HarvestRead {
  std::vector<HarvestRecord> records;    // in file-name order
  std::vector<std::filesystem::path> files;   // parallel: where each was read
  std::vector<std::string> warnings;     // one per file skipped, naming it; one if records were left unread
};
// Every record of a cache: damaged, oversized or unreadable files are skipped with a warning; a
// symbolic link where the folder should be is not followed (one warning, no records).
HarvestRead read_harvest_records(const std::filesystem::path& cache_directory);

}  // namespace kiln::store

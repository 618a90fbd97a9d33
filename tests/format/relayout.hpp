// Packages Kiln's writer never writes, made from the bytes it does write: the sections laid out again
// with another index page size, with a section added or left out, or with another version in the
// header, every checksum right (INDEX_PAGES made again over the index as it then lies), so that the
// file reaches the reader check a test is about. The writer itself only writes what Kiln's builds
// need. No test framework: the fuzzer's corpus maker links it too.
#pragma once

#include "format/layout.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln::format::testing {

struct LaidSection {
  std::uint32_t kind = 0;                // a SectionKind, or a kind this version does not know
  std::uint32_t flags = 0;               // SectionFlags
  std::vector<std::byte> bytes;
};

struct Layout {
  std::uint16_t major = k_version_major;
  std::uint16_t minor = k_version_minor;
  std::vector<LaidSection> sections;     // in file order
  // The page of INDEX_PAGES, which lay_out makes again when it follows BLOBS.
  std::uint32_t index_page_size = k_index_page_size;
};

// The version, the sections (in file order) and the index page size of a file whose header and TOC
// lie inside it, as the writer's do.
Layout layout_of(const std::vector<std::byte>& file);

// A 64-byte header, each section at the next multiple of 16 after zero padding, then the TOC, as the
// writer lays a file out. INDEX_PAGES, when it follows a BLOBS section, is made over [64, BLOBS) in
// pages of layout.index_page_size; every checksum is made right.
std::vector<std::byte> lay_out(const Layout& layout);

// `file` with INDEX_PAGES made again in pages of `page_size` bytes (which the format allows or not).
std::vector<std::byte> with_index_page_size(const std::vector<std::byte>& file, std::uint32_t page_size);

// `file` with a section of `kind` added just before BLOBS, where a newer minor's writer puts what it
// adds (the index pages cover it).
std::vector<std::byte> with_section(const std::vector<std::byte>& file, std::uint32_t kind,
                                    std::vector<std::byte> bytes, std::uint32_t flags = 0);

// `file` without its sections of `kind`.
std::vector<std::byte> without_section(const std::vector<std::byte>& file, SectionKind kind);

// `file` with `major`.`minor` in its header and its checksums made right: a well-formed file of that
// version, not a damaged one.
std::vector<std::byte> with_version(std::vector<std::byte> file, std::uint16_t major, std::uint16_t minor);

}  // namespace kiln::format::testing

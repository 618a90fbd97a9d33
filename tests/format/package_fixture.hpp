// Shared by the package tests: a sample package with every kind of record, and byte-level helpers
// to inspect and edit a written file the way a corrupted or hostile file would differ.
#pragma once

#include "format/layout.hpp"
#include "format/package_reader.hpp"
#include "writer/package_writer.hpp"
#include "reseal.hpp"   // reseal(): checksums made right after an edit
#include "relayout.hpp" // with_section(), with_version() ...: files the writer does not write

#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::format::testing {

using Bytes = std::vector<std::byte>;

Bytes bytes_of(std::string_view text);  // the characters, no terminator
Bytes ptx_of(std::string_view text);    // the characters and a NUL, as PTX images are stored
// A minimal well-formed cubin for sm_`sm` (format::check_image accepts it): a 64-bit EM_CUDA ELF
// header (ABI version 8), `body` at offset 64, then a one-entry section header table.
Bytes cubin_of(std::string_view body, unsigned sm);
Bytes random_bytes(std::size_t size, unsigned seed);  // incompressible: stored raw
Bytes repetitive_bytes(std::size_t size);             // compresses well: stored as zstd

// 2 units, 3 targets (sm_80, sm_90a, compute_80), 4 kernels with parameters and aliases,
// 3 variables, 5 sources, 4 metadata entries; raw and compressed images.
PackageContents sample_contents();

// The sample plus a variant and a link group (units sorted: f64, kernels/saxpy.cu, kernels/scale.cu, rdc):
// unit "f64", a variant of kernels/scale.cu (sm_80), holding the variant kernel
// "f64/_Z5scaleIdEvPT_S0_i" ("f64/scale<double>", kernel 4 once sorted), and unit "rdc", a link
// group of rdc/b.cu and rdc/a.cu (sm_80, sm_90a), holding "_Z4pingv" ("ping", kernel 0).
PackageContents variant_contents();

// Writes `contents`, failing the test if the writer refuses them.
Bytes write_ok(const PackageContents& contents, const WriteOptions& options = {});

FileHeader header_of(const Bytes& file);
std::vector<TocEntry> toc_of(const Bytes& file);
TocEntry section_of(const Bytes& file, SectionKind kind);  // the first entry of that kind

// Record i of a record section, read or replaced in place (call reseal() afterwards).
template <class Record>
Record get_record(const Bytes& file, SectionKind kind, std::size_t i) {
  Record r;
  std::memcpy(&r, file.data() + section_of(file, kind).offset + i * sizeof(Record), sizeof r);
  return r;
}
template <class Record>
void set_record(Bytes& file, SectionKind kind, std::size_t i, const Record& r) {
  std::memcpy(file.data() + section_of(file, kind).offset + i * sizeof(Record), &r, sizeof r);
}

void set_header(Bytes& file, const FileHeader& header);
void set_toc_entry(Bytes& file, std::size_t i, const TocEntry& entry);

// A file of these sections (kinds 1-11 and any others, in this order), laid out as the writer lays
// them out, BLOBS flagged verify_lazily, every checksum right: for hostile indexes the writer would
// never produce. What a file must have that they leave out is added where the writer puts it: empty
// KERNEL_TARGETS and UNIT_SOURCES and the NAME_INDEX of their NAMES before BLOBS, INDEX_PAGES last.
Bytes assemble(const std::vector<std::pair<SectionKind, Bytes>>& sections);

// Opens `file` and fails the test if that does not work.
// A reader's answer as these tests compare it: its status (SUCCESS when it succeeded) and the text
// the loader hands out for it ("app.kiln: ...", "" when it succeeded).
template <class Answer>
kiln_status status_of(const Answer& answer) {
  return answer.ok() ? KILN_STATUS_SUCCESS : answer.error().status;
}
template <class Answer>
std::string text_of(const Answer& answer) {
  return answer.ok() ? std::string() : error_text(answer.error());
}
// Its message alone, without the place error_text puts before it ("" when it succeeded).
template <class Answer>
std::string message_of(const Answer& answer) {
  return answer.ok() ? std::string() : answer.error().message;
}

PackageReader open_ok(const Bytes& file);

// Opening `file` (as "app.kiln") fails as corrupt with exactly "app.kiln: <message>".
void expect_corrupt(const Bytes& file, const std::string& message);

}  // namespace kiln::format::testing

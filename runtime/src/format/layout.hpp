// The Kiln package file, format 2.0: the one definition shared by the generator (writer) and the
// runtime (reader). docs/package-format.md describes the same bytes in prose; keep both exact.
//
// Grammar (all integers little-endian, all offsets from the start of the file):
//
//   file     := FileHeader  section*  toc
//   toc      := TocEntry[FileHeader.section_count]            (at FileHeader.toc_offset)
//   section  := bytes[TocEntry.size]                          (at TocEntry.offset, 16-byte aligned)
//
// Every section is a packed array of one record type below, except STRINGS (NUL-terminated UTF-8
// strings addressed by StrRef), BLOBS and TEXT_BLOBS (bytes addressed by ImageRecord and
// SourceTextRecord) and INDEX_PAGES (IndexPagesHeader and its checksums). Tables that are searched
// are sorted by the bytes of the key named in their comment (memcmp order), with no duplicates.
// Every index into another table is checked by the reader before use.
//
// Written to disk: never renumber an enum value or move a field. A newer minor version (2.1, ...)
// may append sections (readers skip kinds they do not know) and use reserved fields, which are zero
// in 2.0; anything else needs a new major version, which older readers refuse. Files of major 1,
// the formats before Kiln's first release, are refused too: there is no reader for them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace kiln::format {

// PNG-style magic: a high byte first and CR LF / ^Z inside catch files mangled by text-mode transfers.
inline constexpr std::array<unsigned char, 8> k_magic = {0x89, 'K', 'I', 'L', 'N', '\r', '\n', 0x1a};
inline constexpr std::uint16_t k_version_major = 2;
inline constexpr std::uint16_t k_version_minor = 0;
inline constexpr std::uint64_t k_section_alignment = 16;
inline constexpr std::uint64_t k_blob_alignment = 16;

struct FileHeader {                      // at offset 0, 64 bytes
  std::uint8_t magic[8];                 // k_magic
  std::uint16_t version_major;           // k_version_major; a reader refuses any other major
  std::uint16_t version_minor;           // any minor of the reader's major is accepted
  std::uint32_t header_size;             // sizeof(FileHeader) == 64; a newer minor may grow it
  std::uint64_t file_size;               // the whole file; a shorter buffer is a truncated file
  std::uint64_t toc_offset;              // where the TocEntry array starts
  std::uint32_t section_count;           // number of TocEntry records
  std::uint32_t flags;                   // reserved, 0
  std::uint64_t toc_checksum;            // XXH3-64 (seed 0) of the TocEntry array
  std::uint64_t reserved;                // 0
  std::uint64_t header_checksum;         // XXH3-64 (seed 0) of bytes [0, 56) of this header
};
static_assert(sizeof(FileHeader) == 64);
inline constexpr std::size_t k_header_checksum_span = 56;

// Section kinds. Written to disk: never renumber, only append. Every kind appears exactly once,
// even when empty, except the four of carried sources (14 to 17), which appear at most once each:
// Kiln writes all four in a package that carries sources and none otherwise.
enum class SectionKind : std::uint32_t {
  strings = 1,    // char[]: NUL-terminated strings, the first byte is a NUL (StrRef {0, 0} is "")
  targets = 2,    // TargetRecord[], sorted by (kind, arch, variant)
  units = 3,      // UnitRecord[], sorted by source path
  images = 4,     // ImageRecord[], grouped by unit (in unit order), then by target index
  kernels = 5,    // KernelRecord[], sorted by lowered name
  params = 6,     // ParamRecord[], each kernel's parameters contiguous, in ordinal order
  names = 7,      // NameRecord[], sorted by name: every name a kernel can be asked for
  variables = 8,  // VariableRecord[], sorted by name
  sources = 9,    // SourceRecord[], sorted by path
  metadata = 10,  // MetadataRecord[], sorted by key
  blobs = 11,     // image bytes; each image starts at a multiple of k_blob_alignment
  kernel_targets = 12,  // KernelTargetRecord[], sorted by (kernel, target)
  unit_sources = 13,    // UnitSourceRecord[], sorted by (unit, source)
  carried_units = 14,   // CarriedUnitRecord[], sorted by unit
  carried_entries = 15, // CarriedEntryRecord[], each carried unit's contiguous, in CARRIED_UNITS order
  source_texts = 16,    // SourceTextRecord[], sorted by content hash
  text_blobs = 17,      // the texts' stored bytes (verified lazily: each text carries its own hash)
  name_index = 18,      // u32[]: NAMES as an open-addressing hash table (see NameIndexSlot)
  index_pages = 19,     // IndexPagesHeader, then u64[page_count]: a checksum per page of the index
};

// NAME_INDEX: a power-of-two number of u32 slots, at least twice as many as NAMES has records (8 at
// least). A slot holds 0 (empty) or 1 + the index of a NAMES record. A name is looked up at slot
// XXH3-64(name) (seed 0; the name's bytes without its NUL) modulo the slot count, then the next
// slots in turn (wrapping) until an empty one; the writer inserts NAMES in their order. A reader
// trusts a slot only when the NAMES record it points to has the name asked for, and a name the index
// does not find is searched in NAMES as without an index: a wrong index can cost time, never give a
// wrong kernel or hide one.
using NameIndexSlot = std::uint32_t;

// INDEX_PAGES: the bytes from the end of the header to the start of BLOBS (every section but
// BLOBS and INDEX_PAGES, and the padding between them) cut into pages of page_size bytes (the last
// may be shorter), each with its XXH3-64 (seed 0). The section lies after BLOBS. A reader may read
// the index a page at a time, checking each page as it reads it, instead of reading and checking
// every section at open; the section checksums still hold for readers that do.
struct IndexPagesHeader {                // 24 bytes, then page_count u64 checksums
  std::uint32_t page_size;               // a power of two from 4096 to 1 MiB
  std::uint32_t page_count;              // ceil((end - begin) / page_size)
  std::uint64_t begin;                   // FileHeader.header_size
  std::uint64_t end;                     // the offset of BLOBS
};
static_assert(sizeof(IndexPagesHeader) == 24);
inline constexpr std::uint32_t k_index_page_size = 4096;    // what the writer uses
inline constexpr std::uint32_t k_index_page_min = 4096;
inline constexpr std::uint32_t k_index_page_max = 1u << 20;

// TocEntry.flags bits. Written to disk.
enum SectionFlags : std::uint32_t {
  // The section checksum is not verified when a package is opened (BLOBS: each image carries its own
  // checksum and is verified when it is loaded). `kiln verify` still checks it.
  k_section_verify_lazily = 1u << 0,
};

struct TocEntry {                        // 32 bytes
  std::uint32_t kind;                    // SectionKind; unknown kinds are skipped
  std::uint32_t flags;                   // SectionFlags
  std::uint64_t offset;                  // multiple of k_section_alignment
  std::uint64_t size;                    // bytes; a multiple of the record size for record sections
  std::uint64_t checksum;                // XXH3-64 (seed 0) of the section bytes
};
static_assert(sizeof(TocEntry) == 32);

struct StrRef {                          // a string in STRINGS: bytes [offset, offset + length), then NUL
  std::uint32_t offset;
  std::uint32_t length;
};
static_assert(sizeof(StrRef) == 8);

// Written to disk: never renumber.
enum class TargetKind : std::uint8_t { sass = 0, ptx = 1 };
enum class TargetVariant : std::uint8_t { plain = 0, arch_specific = 1 /* 'a' */, family = 2 /* 'f' */ };

struct TargetRecord {                    // 16 bytes
  StrRef name;                           // the full target string: "sm_90a", "sm_100f", "compute_90"
  std::uint16_t arch;                    // major * 10 + minor: 75, 90, 100, 121
  std::uint8_t kind;                     // TargetKind
  std::uint8_t variant;                  // TargetVariant
  std::uint32_t reserved;                // 0
};
static_assert(sizeof(TargetRecord) == 16);

// One compile unit: a source file (`source` is its path, relative to the manifest, '/'-separated),
// or a source variant or a link group (`source` is the name the manifest gives it, and
// UNIT_SOURCES lists its sources). Either way `source` is the unit's unique name.
struct UnitRecord {                      // 16 bytes
  StrRef source;                         // the unit's name: its source's path, or a variant's or group's name
  std::uint32_t first_image;             // index into IMAGES
  std::uint32_t image_count;             // one image per target the unit was built for
};
static_assert(sizeof(UnitRecord) == 16);

// Written to disk: never renumber.
enum class ImageEncoding : std::uint32_t { raw = 0, zstd = 1 /* one zstd frame with content checksum */ };

struct ImageRecord {                     // 48 bytes
  std::uint32_t unit;                    // index into UNITS
  std::uint32_t target;                  // index into TARGETS; its kind says cubin (sass) or PTX
  std::uint64_t offset;                  // from the start of BLOBS
  std::uint64_t stored_size;             // bytes in BLOBS
  std::uint64_t raw_size;                // bytes after decoding; PTX includes its terminating NUL
  std::uint64_t checksum;                // XXH3-64 (seed 0) of the decoded bytes
  std::uint32_t encoding;                // ImageEncoding
  std::uint32_t ptx_version;             // PTX images: the ISA ".version" as major * 10 + minor (9.0 -> 90),
                                         // which the driver must support; cubins: 0
};
static_assert(sizeof(ImageRecord) == 48);

// KernelRecord.flags bits. Written to disk.
enum KernelFlags : std::uint32_t {
  k_kernel_extern_c = 1u << 0,           // the lowered name is the plain C name
  k_kernel_template = 1u << 1,           // a template instantiation (weak symbol; may exist in several units)
  k_kernel_params_known = 1u << 2,       // first_param/param_count describe the parameters
  // A kernel of a source variant (one source compiled again with other options, named by the
  // manifest). Its lowered name is "<variant>/<symbol>", which keeps KERNELS unique although two
  // variants hold the same symbol; the symbol in the image is the part after the first '/'. A
  // kernel without the flag has no '/' in its lowered name.
  k_kernel_variant = 1u << 3,
  // No image of this file holds the kernel; another file of a split package does (a kernel only
  // some targets' images hold, all of them split off: docs/split-packages.md). Such a kernel has no
  // KERNEL_TARGETS records.
  k_kernel_in_other_file = 1u << 4,
};

struct KernelRecord {                    // 32 bytes
  StrRef lowered_name;                   // the symbol in the image: "_Z9block_sumIfLi256EEvPKT_PS0_i";
                                         // a variant kernel's is "<variant>/<symbol>"
  StrRef canonical_name;                 // the generator's spelling: "block_sum<float, 256>"
  std::uint32_t unit;                    // index into UNITS: the unit whose images hold the kernel
  std::uint32_t first_param;             // index into PARAMS
  std::uint32_t param_count;
  std::uint32_t flags;                   // KernelFlags
};
static_assert(sizeof(KernelRecord) == 32);

// A kernel that only some images of its unit hold (its source guards it with __CUDA_ARCH__, or it
// lives in a namespace versioned per SM, as CUB's do) has one record per target whose image holds
// it. A kernel with no record is in every image of its unit.
struct KernelTargetRecord {              // 8 bytes
  std::uint32_t kernel;                  // index into KERNELS
  std::uint32_t target;                  // index into TARGETS: the kernel's unit has an image for it
};
static_assert(sizeof(KernelTargetRecord) == 8);

// Written to disk: never renumber. What a UNIT_SOURCES record says about its unit; all records of
// one unit have the same role.
enum class UnitSourceRole : std::uint32_t {
  link_member = 0,  // the unit is a link group: its sources were compiled apart and linked into one image per target
  variant_of = 1,   // the unit is a source variant: its one source compiled again with other options
};

// The sources of a unit whose sources are not just its own name (a link group, or a
// variant). A unit without records is one source file, the path its UnitRecord names.
struct UnitSourceRecord {                // 16 bytes
  std::uint32_t unit;                    // index into UNITS
  std::uint32_t role;                    // UnitSourceRole, the same for every record of the unit
  StrRef source;                         // a source path, relative to the manifest
};
static_assert(sizeof(UnitSourceRecord) == 16);

// The sources of a unit built with `carry_sources`, so that the runtime can compile more of
// its kernels (new template instantiations, other architectures) with exactly the build's inputs: its
// source and every header the build read, laid out as a tree of relative paths, the include
// directories in that tree, and the options. Texts are stored once per package (SOURCE_TEXTS), however
// many units read them.
struct CarriedUnitRecord {               // 24 bytes
  std::uint32_t unit;                    // index into UNITS
  std::uint32_t first_entry;             // index into CARRIED_ENTRIES
  std::uint32_t entry_count;             // its entries follow one another; records tile the table
  std::uint32_t reserved;                // 0
  StrRef nvrtc_version;                  // the NVRTC the build compiled it with: "13.0"
};
static_assert(sizeof(CarriedUnitRecord) == 24);

// Written to disk: never renumber. A unit's entries come in this order of kinds: its one source,
// its headers (sorted by path), then include directories, options, link options and kernel
// templates, each in the order the build used them.
enum class CarriedEntryKind : std::uint32_t {
  source = 0,           // value: the source's path in the tree (NVRTC's program name); text: its text
  header = 1,           // value: a header's path in the tree; text: its text
  include_dir = 2,      // value: a directory of the tree ("." for its root), given to NVRTC as -I<tree>/<value>
  option = 3,           // value: an NVRTC option other than -I, -arch and what Kiln adds (-D..., -std=...)
  link_option = 4,      // value: an option nvJitLink takes too (-lineinfo, -ftz=true)
  kernel_template = 5,  // value: a kernel or kernel template the source declares ("mylib::block_sum")
};

struct CarriedEntryRecord {              // 16 bytes
  std::uint32_t kind;                    // CarriedEntryKind
  std::uint32_t text;                    // source and header: index into SOURCE_TEXTS; else 0
  StrRef value;                          // paths are relative, '/'-separated, with no "." or ".." part
};
static_assert(sizeof(CarriedEntryRecord) == 16);

struct SourceTextRecord {                // 40 bytes
  std::uint64_t content_hash;            // XXH3-64 (seed 0) of the text's bytes; unique in the table
  std::uint64_t offset;                  // from the start of TEXT_BLOBS
  std::uint64_t stored_size;             // bytes in TEXT_BLOBS
  std::uint64_t raw_size;                // bytes after decoding
  std::uint32_t encoding;                // ImageEncoding: raw or one zstd frame
  std::uint32_t reserved;                // 0
};
static_assert(sizeof(SourceTextRecord) == 40);

struct ParamRecord {                     // 8 bytes: one kernel parameter, from the cubin's .nv.info
  std::uint32_t offset;                  // byte offset in the parameter buffer
  std::uint32_t size;                    // bytes
};
static_assert(sizeof(ParamRecord) == 8);

struct NameRecord {                      // 12 bytes
  StrRef name;                           // a normalized name (see names.hpp): expression, canonical or lowered
  std::uint32_t kernel;                  // index into KERNELS
};
static_assert(sizeof(NameRecord) == 12);

// Written to disk: never renumber.
enum class VariableKind : std::uint32_t { device = 0, constant = 1, managed = 2 };

struct VariableRecord {                  // 32 bytes
  StrRef name;                           // normalized name as the manifest or a host request spells it
  StrRef lowered_name;                   // the symbol in the image
  std::uint32_t unit;                    // index into UNITS
  std::uint32_t kind;                    // VariableKind
  std::uint64_t size;                    // bytes
};
static_assert(sizeof(VariableRecord) == 32);

// Written to disk: never renumber.
// toolkit_headers: one record for every header read from the CUDA toolkit, path "<cuda>", whose hash
// is XXH3-64 over "path\0" + 8-byte little-endian content hash of each such header, sorted by path.
// The toolkit's version is in METADATA; hundreds of per-header records would outweigh the images.
enum class SourceRole : std::uint32_t { manifest = 0, source = 1, header = 2, toolkit_headers = 3 };

struct SourceRecord {                    // 24 bytes: an input file and the hash of its content
  StrRef path;                           // relative to the manifest, or "<cuda>/include/..." for the toolkit
  std::uint32_t role;                    // SourceRole
  std::uint32_t reserved;                // 0
  std::uint64_t content_hash;            // XXH3-64 (seed 0) of the file's bytes
};
static_assert(sizeof(SourceRecord) == 24);

struct MetadataRecord {                  // 16 bytes
  StrRef key;                            // e.g. "generator.version", "nvrtc.version", "options"
  StrRef value;
};
static_assert(sizeof(MetadataRecord) == 16);

}  // namespace kiln::format

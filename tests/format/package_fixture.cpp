#include "package_fixture.hpp"

#include "format/name_index.hpp"
#include "format/record_io.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace kiln::format::testing {

Bytes bytes_of(std::string_view text) {
  Bytes out(text.size());
  std::memcpy(out.data(), text.data(), text.size());
  return out;
}

Bytes ptx_of(std::string_view text) {
  Bytes out = bytes_of(text);
  out.push_back(std::byte{0});
  return out;
}

Bytes cubin_of(std::string_view body, unsigned sm) {
  const std::uint64_t table = (64 + body.size() + 7) / 8 * 8;
  Bytes out(table + 64);
  const auto put = [&](std::size_t at, auto value) { std::memcpy(out.data() + at, &value, sizeof value); };
  std::memcpy(out.data(), "\x7f" "ELF\x02\x01\x01\x41\x08", 9);  // ELF64, little-endian, CUDA ABI 8
  put(16, std::uint16_t{2});               // ET_EXEC
  put(18, std::uint16_t{190});             // EM_CUDA
  put(20, std::uint32_t{1});
  put(40, table);                          // e_shoff
  put(48, std::uint32_t{0x06000000u | (sm << 8) | 0x04u});
  put(52, std::uint16_t{64});              // e_ehsize
  put(58, std::uint16_t{64});              // e_shentsize
  put(60, std::uint16_t{1});               // e_shnum: the null section
  std::memcpy(out.data() + 64, body.data(), body.size());
  return out;
}

namespace {

// NAME_INDEX as the writer would make it for `names`, whose strings lie in `strings` (a reference
// outside them counts as the empty name).
Bytes name_index_of(const Bytes& strings, const Bytes& names) {
  std::vector<std::string_view> keys;
  for (std::size_t at = 0; at + sizeof(NameRecord) <= names.size(); at += sizeof(NameRecord)) {
    NameRecord r;
    std::memcpy(&r, names.data() + at, sizeof r);
    const bool inside = r.name.offset < strings.size() && r.name.length < strings.size() - r.name.offset;
    keys.push_back(inside ? std::string_view(reinterpret_cast<const char*>(strings.data()) + r.name.offset, r.name.length)
                          : std::string_view());
  }
  Bytes out;
  for (const NameIndexSlot slot : detail::build_name_index(keys)) detail::append_record(out, slot);
  return out;
}

}  // namespace

Bytes assemble(const std::vector<std::pair<SectionKind, Bytes>>& sections) {
  const auto given = [&](SectionKind kind) {
    return std::any_of(sections.begin(), sections.end(), [&](const auto& s) { return s.first == kind; });
  };
  const auto bytes_of_kind = [&](SectionKind kind) {
    for (const auto& [k, bytes] : sections)
      if (k == kind) return bytes;
    return Bytes{};
  };
  Layout layout;
  for (const auto& [kind, bytes] : sections) {
    if (kind == SectionKind::blobs) {   // what the file must have besides, where the writer puts it
      if (!given(SectionKind::kernel_targets)) layout.sections.push_back({static_cast<std::uint32_t>(SectionKind::kernel_targets), 0, {}});
      if (!given(SectionKind::unit_sources)) layout.sections.push_back({static_cast<std::uint32_t>(SectionKind::unit_sources), 0, {}});
      if (!given(SectionKind::name_index)) {
        layout.sections.push_back({static_cast<std::uint32_t>(SectionKind::name_index), 0,
                                   name_index_of(bytes_of_kind(SectionKind::strings), bytes_of_kind(SectionKind::names))});
      }
    }
    const std::uint32_t flags = kind == SectionKind::blobs ? std::uint32_t{k_section_verify_lazily} : 0u;
    layout.sections.push_back({static_cast<std::uint32_t>(kind), flags, bytes});
  }
  // Made by lay_out over the index as laid out.
  if (!given(SectionKind::index_pages)) layout.sections.push_back({static_cast<std::uint32_t>(SectionKind::index_pages), 0, {}});
  return lay_out(layout);
}

Bytes random_bytes(std::size_t size, unsigned seed) {
  std::mt19937 random(seed);
  Bytes out(size);
  for (std::byte& b : out) {
    b = static_cast<std::byte>(random() & 0xff);
  }
  return out;
}

Bytes repetitive_bytes(std::size_t size) {
  Bytes out(size);
  for (std::size_t i = 0; i < size; ++i) {
    out[i] = static_cast<std::byte>(
        "\x7f"
        "ELF cubin text "[i % 16]);
  }
  return out;
}

PackageContents sample_contents() {
  PackageContents c;
  c.targets = {"sm_90a", "compute_80", "sm_80"};
  const std::string ptx = std::string(".version 8.0\n.target sm_80\n.address_size 64\n") +
                          std::string(40, '\n') + ".visible .entry saxpy()\n{\n\tret;\n}\n";
  c.units = {
      {"kernels/scale.cu",
       {{"compute_80", ptx_of(ptx + "// scale\n"), 80}, {"sm_80", random_bytes(700, 2), 0}}},
      {"kernels/saxpy.cu",
       {{"sm_90a", repetitive_bytes(4000), 0},
        {"sm_80", random_bytes(1000, 1), 0},
        {"compute_80", ptx_of(ptx), 80}}},
  };
  const std::uint32_t known = k_kernel_params_known;
  c.kernels = {
      {"_Z5scaleIfEvPT_S0_i",
       "scale<float>",
       "kernels/scale.cu",
       k_kernel_template | known,
       {{0, 8}, {8, 8}, {16, 4}},
       {"scale< float >", "scale_f32"}},
      {"saxpy",
       "saxpy",
       "kernels/saxpy.cu",
       k_kernel_extern_c | known,
       {{0, 4}, {8, 8}, {16, 8}, {24, 4}},
       {}},
      {"_Z5scaleIdEvPT_S0_i",
       "scale<double>",
       "kernels/scale.cu",
       k_kernel_template,
       {},
       {"scale_f64"}},
      {"_Z9block_sumIfLi256EEvPKT_PS0_i",
       "red::block_sum<float, 256>",
       "kernels/saxpy.cu",
       k_kernel_template | known,
       {{0, 8}, {8, 8}, {16, 4}},
       {"red::block_sum< float ,256 >", "block_sum<float,256>"}},
  };
  c.variables = {
      {"scale_factor", "scale_factor", "kernels/scale.cu", VariableKind::constant, 4},
      {"ns::table", "_ZN2ns5tableE", "kernels/saxpy.cu", VariableKind::device, 1024},
      {"counter", "counter", "kernels/scale.cu", VariableKind::managed, 8},
  };
  c.sources = {
      {"kiln.toml", SourceRole::manifest, 0x1111},
      {"kernels/saxpy.cu", SourceRole::source, 0x2222},
      {"kernels/scale.cu", SourceRole::source, 0x3333},
      {"<cuda>", SourceRole::toolkit_headers, 0x4444},
      {"kernels/common.cuh", SourceRole::header, 0x5555},
  };
  c.metadata = {{"nvrtc.version", "13.0"},
                {"generator.version", "0.1.0"},
                {"options", "-O3 --use_fast_math"},
                {"empty", ""}};
  return c;
}

PackageContents variant_contents() {
  PackageContents c = sample_contents();
  PackageUnit f64{"f64", {{"sm_80", random_bytes(300, 3), 0}}};
  f64.sources = {"kernels/scale.cu"};
  f64.variant = true;
  PackageUnit rdc{"rdc", {{"sm_90a", random_bytes(400, 4), 0}, {"sm_80", random_bytes(400, 5), 0}}};
  rdc.sources = {"rdc/b.cu", "rdc/a.cu"};
  c.units.push_back(std::move(f64));
  c.units.push_back(std::move(rdc));
  c.kernels.push_back({"f64/_Z5scaleIdEvPT_S0_i", "f64/scale<double>", "f64", k_kernel_template | k_kernel_variant,
                       {}, {"f64/scale< double >"}});
  c.kernels.push_back({"_Z4pingv", "ping", "rdc", 0, {}, {}});
  return c;
}

Bytes write_ok(const PackageContents& contents, const WriteOptions& options) {
  Result<Bytes> written = write_package(contents, options);
  EXPECT_EQ(text_of(written), "");
  return written ? std::move(written).value() : Bytes();
}

FileHeader header_of(const Bytes& file) {
  FileHeader h{};
  std::memcpy(&h, file.data(), std::min(file.size(), sizeof h));
  return h;
}

std::vector<TocEntry> toc_of(const Bytes& file) {
  const FileHeader h = header_of(file);
  std::vector<TocEntry> toc(h.section_count);
  std::memcpy(toc.data(), file.data() + h.toc_offset, toc.size() * sizeof(TocEntry));
  return toc;
}

TocEntry section_of(const Bytes& file, SectionKind kind) {
  for (const TocEntry& e : toc_of(file)) {
    if (e.kind == static_cast<std::uint32_t>(kind)) {
      return e;
    }
  }
  ADD_FAILURE() << "no section of kind " << static_cast<std::uint32_t>(kind);
  return {};
}

void set_header(Bytes& file, const FileHeader& header) {
  std::memcpy(file.data(), &header, sizeof header);
}

void set_toc_entry(Bytes& file, std::size_t i, const TocEntry& entry) {
  std::memcpy(file.data() + header_of(file).toc_offset + i * sizeof entry, &entry, sizeof entry);
}


PackageReader open_ok(const Bytes& file) {
  PackageReader reader;
  const Status e = reader.open(file, "app.kiln");
  EXPECT_TRUE(e) << text_of(e);
  return reader;
}

void expect_corrupt(const Bytes& file, const std::string& message) {
  // A hostile file of another major would be refused for its version, before the check it is about.
  EXPECT_EQ(header_of(file).version_major, k_version_major) << message;
  PackageReader reader;
  const Status e = reader.open(file, "app.kiln");
  EXPECT_EQ(status_of(e), KILN_STATUS_CORRUPT);
  EXPECT_EQ(text_of(e), "app.kiln: " + message);
}

}  // namespace kiln::format::testing

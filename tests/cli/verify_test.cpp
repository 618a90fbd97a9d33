// kiln verify: a sound package passes; a corrupted image, a truncated file, or a cubin recorded
// under the wrong target is caught and named.
#include "format/checksum.hpp"
#include "format/layout.hpp"
#include "format/package_reader.hpp"
#include "writer/package_writer.hpp"
#include "kiln_runner.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstring>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

struct Built {
  ScratchDir dir;
  fs::path package;
};

std::unique_ptr<Built> build_basic() {
  auto b = std::make_unique<Built>();
  const fs::path project = b->dir.copy_project("basic");
  b->package = b->dir.path() / "basic.kiln";
  const RunResult r = run_kiln({"build", "-o", b->package.string()}, project);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return b;
}

TEST(Verify, SoundPackagePasses) {
  const auto b = build_basic();
  const RunResult r = run_kiln({"verify", b->package.string()}, b->dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ok (15 sections, 6 images, 8 kernels)"), std::string::npos) << r.out;
}

TEST(Verify, CorruptedImageIsNamedWhileInspectStillOpensThePackage) {
  const auto b = build_basic();
  std::vector<std::byte> bytes = read_bytes(b->package);
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(bytes));
  // Flip a byte in the middle of the second image's stored bytes.
  const std::span<const std::byte> image = reader.stored_image(1);
  const std::size_t offset = static_cast<std::size_t>(image.data() - bytes.data()) + image.size() / 2;
  const std::string label = std::string(reader.unit(reader.image(1).unit).source) + " [" +
                            std::string(reader.target(reader.image(1).target).name) + "]";
  bytes[offset] ^= std::byte{0x5a};
  write_bytes(b->package, bytes);

  // Opening reads the index only, so inspect works; verify reads every image.
  EXPECT_EQ(run_kiln({"inspect", b->package.string()}, b->dir.path()).exit_code, 0);
  const RunResult r = run_kiln({"verify", b->package.string()}, b->dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(label), std::string::npos) << label << "\n" << r.err;
  EXPECT_NE(r.err.find("BLOBS"), std::string::npos) << r.err;
}

TEST(Verify, TruncatedPackageIsBadInput) {
  const auto b = build_basic();
  std::vector<std::byte> bytes = read_bytes(b->package);
  bytes.resize(bytes.size() / 2);
  write_bytes(b->package, bytes);
  const RunResult r = run_kiln({"verify", b->package.string()}, b->dir.path());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("basic.kiln"), std::string::npos) << r.err;
}

// A package whose sm_80 entry holds the sm_90a cubin: every checksum is right, the content is not.
TEST(Verify, CubinUnderTheWrongTargetIsCaught) {
  const auto b = build_basic();
  const std::vector<std::byte> bytes = read_bytes(b->package);
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(bytes));
  format::PackageContents contents;
  for (std::uint32_t t = 0; t < reader.target_count(); ++t) contents.targets.emplace_back(reader.target(t).name);
  for (std::uint32_t u = 0; u < reader.unit_count(); ++u) {
    const format::UnitView unit = reader.unit(u);
    format::PackageUnit out{std::string(unit.source), {}};
    std::vector<std::vector<std::byte>> images(unit.image_count);
    for (std::uint32_t i = 0; i < unit.image_count; ++i) {
      Result<std::vector<std::byte>> read = reader.read_image(unit.first_image + i);
      ASSERT_TRUE(read);
      images[i] = std::move(*read);
    }
    for (std::uint32_t i = 0; i < unit.image_count; ++i) {
      const format::ImageView image = reader.image(unit.first_image + i);
      const std::string target(reader.target(image.target).name);
      // Swap the sm_80 and sm_90a cubins.
      std::uint32_t source_index = i;
      if (target == "sm_80") source_index = i + 1;
      if (target == "sm_90a") source_index = i - 1;
      out.images.push_back({target, images[source_index], image.ptx_version});
    }
    contents.units.push_back(std::move(out));
  }
  for (std::uint32_t k = 0; k < reader.kernel_count(); ++k) {
    const format::KernelView kernel = reader.kernel(k);
    format::PackageKernel out{std::string(kernel.lowered_name), std::string(kernel.canonical_name),
                              std::string(reader.unit(kernel.unit).source), kernel.flags, {}, {}};
    for (std::uint32_t p = 0; p < kernel.param_count; ++p) out.params.push_back(kernel.param(p));
    contents.kernels.push_back(std::move(out));
  }
  const Result<std::vector<std::byte>> forged = format::write_package(contents);
  ASSERT_TRUE(forged.ok()) << forged.error().message;
  write_bytes(b->package, *forged);

  const RunResult r = run_kiln({"verify", b->package.string()}, b->dir.path());
  EXPECT_EQ(r.exit_code, 1);
  // Every problem in the compilers' format, naming the package first.
  EXPECT_NE(r.err.find(b->package.string() + ": error: kernels/ops.cu [sm_80]: the cubin's ELF header says sm_90"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" problems found; the package is not sound"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("kiln: verify:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kernels/ops.cu [sm_90a]: the cubin's ELF header says sm_80"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not marked architecture-specific"), std::string::npos) << r.err;
}

// A package of one unit, `unit`, whose one image is compute_80 PTX: its header, then `entries`.
format::PackageContents ptx_package(const std::string& unit, const std::string& entries = "") {
  format::PackageContents contents;
  contents.targets = {"compute_80"};
  const std::string ptx = ".version 8.0\n.target sm_80\n.address_size 64\n" + entries;
  std::vector<std::byte> image(ptx.size() + 1);
  std::memcpy(image.data(), ptx.data(), ptx.size());
  contents.units.push_back({unit, {{"compute_80", image, 80}}});
  return contents;
}

// Writes `contents` to `path`.
void save_package(const fs::path& path, const format::PackageContents& contents) {
  const Result<std::vector<std::byte>> written = format::write_package(contents);
  ASSERT_TRUE(written.ok()) << written.error().message;
  write_bytes(path, *written);
}

// An image that lacks the package's kernels: the first ten are named, the rest counted, so the
// report (and the work) stays proportional to the image, not to images x kernels.
TEST(Verify, KernelsMissingFromAnImageAreNamedThenCounted) {
  ScratchDir dir;
  format::PackageContents contents = ptx_package("k.cu");
  for (int i = 0; i < 50; ++i)
    contents.kernels.push_back({"k" + std::to_string(i), "k" + std::to_string(i), "k.cu", format::k_kernel_extern_c, {}, {}});
  save_package(dir.path() / "missing.kiln", contents);

  const RunResult r = run_kiln({"verify", "missing.kiln"}, dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("k.cu [compute_80]: kernel k0 is not in the image"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("k.cu [compute_80]: and 40 more kernels are not in the image"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("missing.kiln: error: 11 problems found"), std::string::npos) << r.err;
}

// A kernel flagged as in another file of a split package is in no image of its own file, which only
// a file of a split (with split.id) may say: in any other package nothing holds it.
TEST(Verify, AKernelFlaggedAsInACompanionOfAPackageThatIsNotSplitIsRefused) {
  ScratchDir dir;
  format::PackageContents contents = ptx_package("k.cu", ".visible .entry k0()\n{\nret;\n}\n");
  contents.kernels.push_back({"k0", "k0", "k.cu", format::k_kernel_extern_c, {}, {}});
  contents.kernels.push_back({"k1", "k1", "k.cu", format::k_kernel_extern_c | format::k_kernel_in_other_file, {}, {}});
  save_package(dir.path() / "stranded.kiln", contents);
  const RunResult r = run_kiln({"verify", "stranded.kiln"}, dir.path());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("stranded.kiln: error: kernel k1 is flagged as in another file of a split package, but the "
                       "package is not split (its METADATA has no split.id): no image holds it"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 problem found"), std::string::npos) << r.err;
  // In a file of a split the flag is what kiln split writes.
  contents.metadata.emplace_back("split.id", "0123456789abcdef");
  save_package(dir.path() / "split.kiln", contents);
  const RunResult split = run_kiln({"verify", "split.kiln"}, dir.path());
  EXPECT_EQ(split.exit_code, 0) << split.err;
}

// Names are data: a file, unit or kernel name holding a terminal's control bytes (ESC [ 31 m turns
// what follows red; a carriage return lets later text overwrite a line) is printed escaped, in
// messages (stderr) and listings (stdout), and JSON stays JSON.
TEST(Verify, ControlBytesInNamesAreEscapedInEveryMessageAndListing) {
  ScratchDir dir;
  format::PackageContents contents = ptx_package("\x1b[31mred.cu");
  contents.kernels.push_back({"k\x1b[31m\r", "k\x1b[31m\r", "\x1b[31mred.cu", format::k_kernel_extern_c, {}, {}});
  const std::string file = "\x1b[31mred\x7f.kiln";
  save_package(dir.path() / file, contents);
  const auto raw_control = [](const std::string& text) {
    for (const char c : text)
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return true;
    return false;
  };

  const RunResult verify = run_kiln({"verify", file}, dir.path());
  EXPECT_EQ(verify.exit_code, 1);
  EXPECT_NE(verify.err.find("\\x1b[31mred\\x7f.kiln: error: \\x1b[31mred.cu [compute_80]: kernel k\\x1b[31m\\x0d is not "
                            "in the image"),
            std::string::npos) << verify.err;
  EXPECT_FALSE(raw_control(verify.err)) << verify.err;
  const RunResult json = run_kiln({"verify", "--json", file}, dir.path());
  EXPECT_FALSE(raw_control(json.out)) << json.out;
  EXPECT_EQ(nlohmann::json::parse(json.out)["path"], file);

  const RunResult inspect = run_kiln({"inspect", file}, dir.path());
  EXPECT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_NE(inspect.out.find("k\\x1b[31m\\x0d"), std::string::npos) << inspect.out;
  EXPECT_NE(inspect.out.find("\\x1b[31mred.cu"), std::string::npos) << inspect.out;
  EXPECT_FALSE(raw_control(inspect.out)) << inspect.out;
  const RunResult listed = run_kiln({"inspect", "--json", file}, dir.path());
  EXPECT_FALSE(raw_control(listed.out)) << listed.out;
  EXPECT_EQ(nlohmann::json::parse(listed.out)["kernels"][0]["name"], "k\x1b[31m\r");

  const RunResult missing = run_kiln({"inspect", "gone\x1b[2J.kiln"}, dir.path());
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("gone\\x1b[2J.kiln"), std::string::npos) << missing.err;
  EXPECT_FALSE(raw_control(missing.err)) << missing.err;
}

// Bytes that no driver could read, under right checksums: the runtime's own image check names them.
TEST(Verify, ImagesTheDriverCannotReadAreNamed) {
  ScratchDir dir;
  format::PackageContents contents;
  contents.targets = {"sm_80", "compute_80"};
  const std::string text = "not an ELF file, and long enough to hold an ELF header's sixty-four bytes.";
  std::vector<std::byte> cubin(text.size());
  std::memcpy(cubin.data(), text.data(), text.size());
  std::vector<std::byte> ptx(text.size() + 1);
  std::memcpy(ptx.data(), text.data(), text.size());
  contents.units.push_back({"k.cu", {{"sm_80", cubin, 0}, {"compute_80", ptx, 80}}});
  const Result<std::vector<std::byte>> written = format::write_package(contents);
  ASSERT_TRUE(written.ok()) << written.error().message;
  write_bytes(dir.path() / "text.kiln", *written);

  const RunResult r = run_kiln({"verify", "text.kiln"}, dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("k.cu [sm_80]: the image is not an ELF file"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("k.cu [compute_80]: the image is PTX without a .version directive"), std::string::npos) << r.err;
}

// Bytes no checksum covers must not exist (or be zero): those after file_size, which readers skip
// (an embedded copy may be padded), and header bytes between 64 and header_size.
TEST(Verify, TrailingBytesAreReported) {
  const auto b = build_basic();
  std::vector<std::byte> bytes = read_bytes(b->package);
  bytes.insert(bytes.end(), {std::byte{1}, std::byte{2}, std::byte{3}});
  write_bytes(b->package, bytes);
  const RunResult r = run_kiln({"verify", b->package.string()}, b->dir.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("basic.kiln: error: 3 bytes after the package's end"), std::string::npos) << r.err;
}

// The package with `header_size` grown by 16 bytes holding `fill`; every offset and checksum fixed up.
std::vector<std::byte> grow_header(std::vector<std::byte> bytes, std::byte fill) {
  format::FileHeader header;
  std::memcpy(&header, bytes.data(), sizeof header);
  bytes.insert(bytes.begin() + sizeof header, 16, fill);
  header.header_size += 16;
  header.file_size += 16;
  header.toc_offset += 16;
  for (std::uint32_t i = 0; i < header.section_count; ++i) {
    format::TocEntry entry;
    std::byte* at = bytes.data() + header.toc_offset + i * sizeof entry;
    std::memcpy(&entry, at, sizeof entry);
    entry.offset += 16;
    if (entry.kind == static_cast<std::uint32_t>(format::SectionKind::index_pages)) {
      // The pages cover the index from the header's end: the same bytes, 16 further on.
      format::IndexPagesHeader pages;
      std::memcpy(&pages, bytes.data() + entry.offset, sizeof pages);
      pages.begin += 16;
      pages.end += 16;
      std::memcpy(bytes.data() + entry.offset, &pages, sizeof pages);
      entry.checksum = format::checksum(std::span(bytes).subspan(entry.offset, entry.size));
    }
    std::memcpy(at, &entry, sizeof entry);
  }
  header.toc_checksum = format::checksum(
      std::span(bytes).subspan(header.toc_offset, header.section_count * sizeof(format::TocEntry)));
  std::memcpy(bytes.data(), &header, sizeof header);
  header.header_checksum = format::checksum(std::span(bytes).first(format::k_header_checksum_span));
  std::memcpy(bytes.data(), &header, sizeof header);
  return bytes;
}

TEST(Verify, NonZeroHeaderBytesPast64AreReported) {
  const auto b = build_basic();
  const std::vector<std::byte> original = read_bytes(b->package);
  write_bytes(b->package, grow_header(original, std::byte{0}));
  EXPECT_EQ(run_kiln({"verify", b->package.string()}, b->dir.path()).exit_code, 0);
  write_bytes(b->package, grow_header(original, std::byte{0x5a}));
  const RunResult r = run_kiln({"verify", b->package.string()}, b->dir.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("basic.kiln: error: non-zero header byte at offset 64"), std::string::npos) << r.err;
}

TEST(Verify, MissingFileIsBadInput) {
  ScratchDir dir;
  EXPECT_EQ(run_kiln({"verify", "absent.kiln"}, dir.path()).exit_code, 3);
}

}  // namespace
}  // namespace kiln::test

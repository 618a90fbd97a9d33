// kiln split on a real build (arch: sm_80, sm_90 and compute_80, with kernels guarded by
// __CUDA_ARCH__ and CUB's per-SM kernels): the main file and one companion per major, each a package
// kiln verify accepts, the images moved byte for byte, kernels some images hold flagged where no
// image of a file holds them, inspect's account of it, a deterministic result, and what is refused.
#include "kiln_runner.hpp"

#include "format/checksum.hpp"
#include "format/package_reader.hpp"
#include "format/split_files.hpp"
#include "util/hasher.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

class SplitCommand : public ::testing::Test {
protected:
  // The GPU tests' build of `arch` when this tree has one, else one build here for every test of
  // this process (it compiles CUB for three targets).
  static void SetUpTestSuite() {
#ifdef KILN_TEST_ARCH_PACKAGE
    if (fs::exists(KILN_TEST_ARCH_PACKAGE)) {
      s_package = new std::vector<std::byte>(read_bytes(KILN_TEST_ARCH_PACKAGE));
      return;
    }
#endif
    s_dir = new ScratchDir;
    const fs::path project = s_dir->copy_project("arch");
    const RunResult built = run_kiln({"build", "-o", "arch.kiln"}, project);
    ASSERT_EQ(built.exit_code, 0) << built.err;
    s_package = new std::vector<std::byte>(read_bytes(project / "arch.kiln"));
  }
  static void TearDownTestSuite() {
    delete s_package;
    delete s_dir;
  }
  void SetUp() override {
    if (!s_package) GTEST_SKIP() << "the arch build failed (above)";
    write_bytes(m_dir.path() / "arch.kiln", *s_package);
  }

  RunResult split(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"split", "arch.kiln"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_kiln(args, m_dir.path());
  }

  static ScratchDir* s_dir;
  static std::vector<std::byte>* s_package;
  ScratchDir m_dir;
};

ScratchDir* SplitCommand::s_dir = nullptr;
std::vector<std::byte>* SplitCommand::s_package = nullptr;

struct Opened {
  std::vector<std::byte> bytes;
  format::PackageReader reader;
};

std::unique_ptr<Opened> open_file(const fs::path& path) {
  auto file = std::make_unique<Opened>();
  file->bytes = read_bytes(path);
  const Status opened = file->reader.open(file->bytes, path.string());
  EXPECT_TRUE(opened) << (opened ? std::string() : error_text(opened.error()));
  return file;
}

std::vector<std::string> targets_of(const format::PackageReader& r) {
  std::vector<std::string> targets;
  for (std::uint32_t t = 0; t < r.target_count(); ++t) targets.emplace_back(r.target(t).name);
  return targets;
}

// CMake's SPLIT runs kiln split after every build: quiet on success, as kiln build is.
TEST_F(SplitCommand, SaysNothingOnSuccessUnlessVerbose) {
  const RunResult r = split();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
}

TEST_F(SplitCommand, WritesTheMainFileAndOneFilePerMajorEachAPackage) {
  const RunResult r = split({"-v"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("arch.cc8.kiln: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(sm_90)"), std::string::npos) << r.out;
  const auto main = open_file(m_dir.path() / "arch.kiln");
  const auto cc8 = open_file(m_dir.path() / "arch.cc8.kiln");
  const auto cc9 = open_file(m_dir.path() / "arch.cc9.kiln");
  EXPECT_EQ(targets_of(main->reader), std::vector<std::string>{"compute_80"});
  EXPECT_EQ(targets_of(cc8->reader), std::vector<std::string>{"sm_80"});
  EXPECT_EQ(targets_of(cc9->reader), std::vector<std::string>{"sm_90"});
  const std::string id = hex64(format::checksum(*s_package));
  EXPECT_EQ(main->reader.metadata_value(format::k_split_id_key), id);
  EXPECT_EQ(main->reader.metadata_value(format::k_split_files_key), "cc8 cc9");
  // Each companion's content id, as the runtime computes it from the file, listed in the main file.
  EXPECT_EQ(main->reader.metadata_value(format::k_split_contents_key),
            "cc8:" + format::content_id(cc8->reader) + " cc9:" + format::content_id(cc9->reader));
  EXPECT_NE(format::content_id(cc8->reader), format::content_id(cc9->reader));
  EXPECT_EQ(cc9->reader.metadata_value(format::k_split_id_key), id);
  EXPECT_EQ(cc9->reader.metadata_value(format::k_split_file_key), "cc9");
  for (const char* file : {"arch.kiln", "arch.cc8.kiln", "arch.cc9.kiln"}) {
    const RunResult verified = run_kiln({"verify", file}, m_dir.path());
    EXPECT_EQ(verified.exit_code, 0) << file << ": " << verified.out << verified.err;
  }

  // Every image of the package is in exactly one file, byte for byte; every file has every kernel.
  format::PackageReader original;
  ASSERT_TRUE(original.open(*s_package, "original"));
  std::map<std::string, const format::PackageReader*> file_of = {
      {"compute_80", &main->reader}, {"sm_80", &cc8->reader}, {"sm_90", &cc9->reader}};
  std::size_t moved = 0;
  for (std::uint32_t i = 0; i < original.image_count(); ++i) {
    const format::ImageView image = original.image(i);
    const format::PackageReader& holder = *file_of.at(std::string(original.target(image.target).name));
    const format::UnitView unit = holder.unit(image.unit);
    ASSERT_EQ(unit.image_count, 1u);
    const Result<std::vector<std::byte>> before = original.read_image(i);
    const Result<std::vector<std::byte>> after = holder.read_image(unit.first_image);
    ASSERT_TRUE(before);
    ASSERT_TRUE(after);
    EXPECT_EQ(*after, *before) << original.unit(image.unit).source;
    ++moved;
  }
  EXPECT_EQ(moved, original.image_count());
  for (const auto* split : {&main->reader, &cc8->reader, &cc9->reader}) EXPECT_EQ(split->kernel_count(), original.kernel_count());

  // guarded.cu: before_sm90 is in sm_80 and compute_80, from_sm90 in sm_90 only.
  const auto in_other_file = [](const format::PackageReader& package, const char* name) {
    return package.kernel_in_other_file(*package.find_kernel(name));
  };
  EXPECT_TRUE(in_other_file(main->reader, "from_sm90"));
  EXPECT_FALSE(in_other_file(main->reader, "before_sm90"));
  EXPECT_TRUE(in_other_file(cc9->reader, "before_sm90"));
  EXPECT_FALSE(in_other_file(cc9->reader, "from_sm90"));
  EXPECT_FALSE(in_other_file(cc8->reader, "always"));
}

TEST_F(SplitCommand, InspectSaysWhichFileIsWhich) {
  ASSERT_EQ(split().exit_code, 0);
  const RunResult main = run_kiln({"inspect", "arch.kiln"}, m_dir.path());
  EXPECT_NE(main.out.find("split: the index and PTX; cubins in arch.cc8.kiln, arch.cc9.kiln"), std::string::npos)
      << main.out;
  EXPECT_NE(main.out.find("only in: another file of the split"), std::string::npos) << main.out;
  const RunResult cc9 = run_kiln({"inspect", "arch.cc9.kiln"}, m_dir.path());
  EXPECT_NE(cc9.out.find("split: the cc9 cubins of a split package (split.id "), std::string::npos) << cc9.out;
}

TEST_F(SplitCommand, InspectWithADeviceTakesTheCubinsFromItsCompanion) {
  ASSERT_EQ(split().exit_code, 0);
  RunResult r = run_kiln({"inspect", "arch.kiln", "--device", "9.0"}, m_dir.path());
  EXPECT_NE(r.out.find("this device's cubins: arch.cc9.kiln\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("loads cubin sm_90 (exact match) from arch.cc9.kiln"), std::string::npos) << r.out;
  r = run_kiln({"inspect", "arch.kiln", "--device", "8.6", "--json"}, m_dir.path());
  const nlohmann::json report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["split"]["device_file"]["path"], "arch.cc8.kiln");
  for (const nlohmann::json& kernel : report["kernels"]) {
    // sm_90's only: not on 8.6.
    if (kernel["name"] == "from_sm90" || kernel["name"].get<std::string>().find("SM_900") != std::string::npos) {
      EXPECT_TRUE(kernel["loads"]["target"].is_null()) << kernel.dump();
    } else {
      EXPECT_EQ(kernel["loads"]["target"], "sm_80") << kernel.dump();
      EXPECT_EQ(kernel["loads"]["file"], "arch.cc8.kiln");
    }
  }
  fs::remove(m_dir.path() / "arch.cc9.kiln");
  r = run_kiln({"inspect", "arch.kiln", "--device", "9.0"}, m_dir.path());
  EXPECT_NE(r.out.find("this device's cubins: arch.cc9.kiln (not installed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("loads PTX compute_80"), std::string::npos) << r.out;
  fs::copy_file(m_dir.path() / "arch.cc8.kiln", m_dir.path() / "arch.cc9.kiln");
  r = run_kiln({"inspect", "arch.kiln", "--device", "9.0"}, m_dir.path());
  EXPECT_EQ(r.out.find("from arch.cc9.kiln"), std::string::npos) << r.out;
}

TEST_F(SplitCommand, TheSameFilesEveryTimeAndWhereOutputDirSays) {
  ASSERT_EQ(split({"-o", "one"}).exit_code, 0);
  ASSERT_EQ(split({"-o", "two/deeper"}).exit_code, 0);
  EXPECT_EQ(read_bytes(m_dir.path() / "arch.kiln"), *s_package);   // the input is left alone
  for (const char* file : {"arch.kiln", "arch.cc8.kiln", "arch.cc9.kiln"})
    EXPECT_EQ(read_bytes(m_dir.path() / "one" / file), read_bytes(m_dir.path() / "two/deeper" / file)) << file;
  EXPECT_FALSE(fs::exists(m_dir.path() / "arch.cc9.kiln"));
}

TEST_F(SplitCommand, RefusesASplitFileABadPackageAndAnUnwritableDirectory) {
  ASSERT_EQ(split().exit_code, 0);
  RunResult r = split();
  EXPECT_EQ(r.exit_code, k_bad_input);
  EXPECT_NE(r.err.find("arch.kiln: it is already a file of a split package"), std::string::npos) << r.err;
  r = run_kiln({"split", "arch.cc9.kiln"}, m_dir.path());
  EXPECT_EQ(r.exit_code, k_bad_input);

  r = run_kiln({"split", "missing.kiln"}, m_dir.path());
  EXPECT_EQ(r.exit_code, k_bad_input);
  EXPECT_NE(r.err.find("missing.kiln"), std::string::npos) << r.err;
  write_text(m_dir.path() / "text.kiln", "not a package");
  r = run_kiln({"split", "text.kiln"}, m_dir.path());
  EXPECT_EQ(r.exit_code, k_bad_input);
  EXPECT_NE(r.err.find("text.kiln"), std::string::npos) << r.err;

  write_bytes(m_dir.path() / "whole.kiln", *s_package);
  write_text(m_dir.path() / "a-file", "");
  r = run_kiln({"split", "whole.kiln", "-o", "a-file/sub"}, m_dir.path());
  EXPECT_EQ(r.exit_code, k_environment);
  EXPECT_NE(r.err.find("a-file/sub/whole.cc"), std::string::npos) << r.err;
  EXPECT_EQ(read_bytes(m_dir.path() / "whole.kiln"), *s_package);
}

}  // namespace
}  // namespace kiln::test

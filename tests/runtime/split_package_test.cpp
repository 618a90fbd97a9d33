// A split package (kiln split): the main file holds the index and the PTX, `<name>.cc<major>.kiln`
// beside it the cubins of one major. The runtime loads each kernel from the companion of the
// device's major when it is installed, else from the main file's PTX, and names the file to install
// when neither serves. The files here are what kiln split writes for ops.cu built for sm_80, sm_86,
// sm_90 and compute_80 (tests/cli/split_test.cpp checks kiln split itself writes such files).
#include "runtime_fixture.hpp"
#include "test_process.hpp"

#include "format/package_reader.hpp"
#include "format/split_files.hpp"

#include <filesystem>
#include <fstream>

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* k_split_id = "0123456789abcdef";

PackageSpec split_file(std::uint16_t major, const std::string& id = k_split_id);

std::string content_id_of(const Bytes& file) {
  format::PackageReader reader;
  EXPECT_TRUE(reader.open(file));
  return format::content_id(reader);
}

// What the main file lists (split.contents): the content ids of the companions split_file writes.
std::string companion_contents() {
  return format::companion_contents({{8, content_id_of(build_package(split_file(8)))},
                                     {9, content_id_of(build_package(split_file(9)))}});
}

// One file of the split: the targets it holds, the kernels flagged or narrowed as kiln split does.
// `always` is in every image; `hopper` only in sm_90's; `older` in every image but sm_90's.
PackageSpec split_file(std::uint16_t major, const std::string& id) {
  PackageSpec spec;
  std::vector<std::string> targets;
  if (major == 0) targets = {"compute_80"};
  if (major == 8) targets = {"sm_80", "sm_86"};
  if (major == 9) targets = {"sm_90"};
  spec.units = {{"ops.cu", targets}};
  KernelSpec hopper("hopper", "ops.cu");
  KernelSpec older("older", "ops.cu");
  if (major == 9) {
    older.elsewhere();
  } else {
    hopper.elsewhere();
  }
  spec.kernels = {KernelSpec("always", "ops.cu"), hopper, older};
  spec.metadata = {{std::string(format::k_split_id_key), id}};
  if (major == 0) {
    spec.metadata.emplace_back(std::string(format::k_split_files_key), "cc8 cc9");
    spec.metadata.emplace_back(std::string(format::k_split_contents_key), companion_contents());
  } else {
    spec.metadata.emplace_back(std::string(format::k_split_file_key), format::companion_tag(major));
  }
  return spec;
}

class SplitPackage : public RuntimeTest {
protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    m_dir = fs::temp_directory_path() / ("kiln-split-" + std::to_string(kiln::test::process_id()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(m_dir, ignored);
    RuntimeTest::TearDown();
  }

  std::string write(const std::string& name, const Bytes& bytes) {
    const fs::path path = m_dir / name;
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
    return path.string();
  }
  // app.kiln, and the companions of `majors`.
  std::string install(std::initializer_list<std::uint16_t> majors) {
    for (const std::uint16_t major : majors) write("app.cc" + std::to_string(major) + ".kiln", build_package(split_file(major)));
    return write("app.kiln", build_package(split_file(0)));
  }

  fs::path m_dir;
};

TEST_F(SplitPackage, EachDeviceLoadsTheCubinsOfItsMajorFromTheirFile) {
  fake->devices = {FakeDevice{90, false}, FakeDevice{86, false}};
  kiln::Package package = kiln::Package::open_file(install({8, 9}));
  package.kernel("always");
  package.kernel("hopper");
  fake->make_current(1);
  package.kernel("always");
  package.kernel("older");
  EXPECT_EQ(fake->loads(), (std::vector<std::string>{image_text("ops.cu", "sm_90"), image_text("ops.cu", "sm_86")}));
  EXPECT_EQ(package.image_for_arch("always", 80).target, "sm_80");
  EXPECT_EQ(std::string(package.image_for_arch("always", 90).description), "cubin sm_90 (exact match)");
  EXPECT_EQ(package.coverage("hopper", 90), KILN_COVERAGE_CUBIN);
}

TEST_F(SplitPackage, WithoutTheCompanionThePtxServes) {
  fake->devices = {FakeDevice{90, false}};
  kiln::Package package = kiln::Package::open_file(install({8}));
  package.kernel("always");
  package.kernel("older");
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("ops.cu", "compute_80")});
  EXPECT_EQ(package.coverage("always", 90), KILN_COVERAGE_PTX);
}

TEST_F(SplitPackage, WhereThePtxCannotServeTheErrorNamesTheFileToInstall) {
  fake->devices = {FakeDevice{90, false}};
  const std::string main = install({8});
  kiln::Package package = kiln::Package::open_file(main);
  // hopper is in the sm_90 cubin only.
  std::string message = error_of([&] { package.kernel("hopper"); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE);
  EXPECT_NE(message.find("another file of the split package"), std::string::npos) << message;
  EXPECT_NE(message.find("its cubins for compute capability 9.x are in " + format::companion_path(main, 9) +
                         ", which is not installed"),
            std::string::npos)
      << message;
  EXPECT_EQ(package.coverage("hopper", 90), KILN_COVERAGE_NONE);
  kiln::test::set_variable("KILN_FORCE_TARGET", "sass");
  kiln::Package forced = kiln::Package::open_file(main);
  message = error_of([&] { forced.kernel("always"); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE);
  EXPECT_NE(message.find("app.cc9.kiln, which is not installed"), std::string::npos) << message;
  EXPECT_TRUE(fake->loads().empty());
}

TEST_F(SplitPackage, ADeviceOfAMajorTheSplitHasNoFileForUsesThePtxAndNamesNoFile) {
  fake->devices = {FakeDevice{120, false}};
  kiln::Package package = kiln::Package::open_file(install({8, 9}));
  package.kernel("always");
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("ops.cu", "compute_80")});
  const std::string message = error_of([&] { package.kernel("hopper"); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE);
  EXPECT_EQ(message.find("not installed"), std::string::npos) << message;
}

TEST_F(SplitPackage, ACompanionWithoutACubinForTheDeviceFallsBackToThePtxOrSaysBoth) {
  fake->devices = {FakeDevice{87, true}};   // integrated: sm_80 and sm_86 cubins do not run on 8.7
  kiln::Package package = kiln::Package::open_file(install({8, 9}));
  package.kernel("always");
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("ops.cu", "compute_80")});
  // hopper is in neither the cc8 file nor the PTX: both say why.
  const std::string message = error_of([&] { package.kernel("hopper"); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE);
  EXPECT_NE(message.find("app.kiln: hopper on device 0"), std::string::npos) << message;
  EXPECT_NE(message.find("; and " + (m_dir / "app.cc8.kiln").string() + ": hopper on device 0"), std::string::npos)
      << message;
}

TEST_F(SplitPackage, ACompanionOfAnotherSplitIsRefusedNamingIt) {
  fake->devices = {FakeDevice{90, false}};
  const std::string main = install({8});
  const std::string stray = write("app.cc9.kiln", build_package(split_file(9, "fedcba9876543210")));
  kiln::Package package = kiln::Package::open_file(main);
  const std::string message = error_of([&] { package.kernel("always"); }, KILN_STATUS_CORRUPT);
  EXPECT_NE(message.find(stray + ", cannot be used: it is not from the same split (split.id fedcba9876543210, "
                                 "the main file's 0123456789abcdef)"),
            std::string::npos)
      << message;
  // Another device's major is unaffected.
  fake->devices = {FakeDevice{80, false}};
  EXPECT_EQ(package.image_for_arch("always", 80).target, "sm_80");
}

TEST_F(SplitPackage, ACompanionThatIsAnotherMajorsOrAnotherPackagesIsRefused) {
  fake->devices = {FakeDevice{90, false}};
  const std::string main = install({});
  write("app.cc9.kiln", build_package(split_file(8)));   // cc8's file under cc9's name
  kiln::Package package = kiln::Package::open_file(main);
  std::string message = error_of([&] { package.kernel("always"); }, KILN_STATUS_CORRUPT);
  EXPECT_NE(message.find("it is not the split's cc9 file"), std::string::npos) << message;

  PackageSpec other = split_file(9);
  other.units[0].source = "other.cu";
  for (KernelSpec& k : other.kernels) k.unit = "other.cu";
  write("app.cc9.kiln", build_package(other));
  kiln::Package again = kiln::Package::open_file(main);
  message = error_of([&] { again.kernel("always"); }, KILN_STATUS_CORRUPT);
  EXPECT_NE(message.find("its units are not the main file's"), std::string::npos) << message;
}

TEST_F(SplitPackage, ACompanionGivenTheMainFilesIdButOtherContentsIsRefused) {
  fake->devices = {FakeDevice{90, false}};
  const std::string main = install({});
  // Another build's cc9 file, with this split's id and tag: here `older` is in its sm_90 image too.
  PackageSpec forged = split_file(9);
  forged.kernels[2] = KernelSpec("older", "ops.cu");
  const std::string companion = write("app.cc9.kiln", build_package(forged));
  kiln::Package package = kiln::Package::open_file(main);
  const std::string message = error_of([&] { package.kernel("always"); }, KILN_STATUS_CORRUPT);
  EXPECT_NE(message.find(companion + ", cannot be used: its contents are not the ones the main file lists (content "
                                     "id " + content_id_of(build_package(forged)) + ", the main file's " +
                         content_id_of(build_package(split_file(9))) + "): it is from another build of the package"),
            std::string::npos)
      << message;
  // What to do: the file of the same build, which for wheels is the provider of the same version.
  EXPECT_NE(message.find("; install the cc9 file that came with " + main +
                         " (from wheels: the provider wheel of the same version as the main one)"),
            std::string::npos)
      << message;
  EXPECT_TRUE(fake->loads().empty());
}

TEST_F(SplitPackage, AMainFileWithoutContentIdsIsRefusedAtOpen) {
  PackageSpec spec = split_file(0);
  spec.metadata.pop_back();   // split.contents
  const std::string path = write("app.kiln", build_package(spec));
  const std::string message = error_of([&] { kiln::Package::open_file(path); }, KILN_STATUS_CORRUPT);
  EXPECT_NE(message.find("METADATA split.contents '' does not give a content id for each file split.files lists"),
            std::string::npos) << message;
  spec.metadata.emplace_back(std::string(format::k_split_contents_key), "cc8:" + std::string(16, '0'));   // cc9's is missing
  write("app.kiln", build_package(spec));
  EXPECT_NE(error_of([&] { kiln::Package::open_file(path); }, KILN_STATUS_CORRUPT).find("split.contents 'cc8:"),
            std::string::npos);
}

TEST_F(SplitPackage, ACompanionWhoseKernelsAreNotTheMainFilesIsRefusedNotAskedForAnImageByIndex) {
  // A cc9 file of another build, whose third kernel is not `older` but one its sm_90 image holds,
  // listed by the main file under its own content id (so that the contents check does not stand
  // in for this one): asked by the main file's index for `older`, it would hand out that image,
  // which lacks `older`.
  fake->devices = {FakeDevice{90, false}};
  PackageSpec swapped = split_file(9);
  swapped.kernels[2] = KernelSpec("other", "ops.cu");
  const std::string companion = write("app.cc9.kiln", build_package(swapped));
  PackageSpec main = split_file(0);
  main.metadata.back().second = format::companion_contents(
      {{8, content_id_of(build_package(split_file(8)))}, {9, content_id_of(build_package(swapped))}});
  kiln::Package package = kiln::Package::open_file(write("app.kiln", build_package(main)));
  const std::string message = error_of([&] { package.image_for_arch("older", 90); }, KILN_STATUS_CORRUPT);
  EXPECT_NE(message.find(companion + ", cannot be used: its kernels are not the main file's (kernel 2)"),
            std::string::npos) << message;
}

TEST_F(SplitPackage, AMainFileOpenedThroughALinkFindsTheCompanionsBesideItsTarget) {
  fake->devices = {FakeDevice{90, false}};
  const fs::path main = install({9});
  fs::create_directories(m_dir / "bin");
  std::error_code error;
  fs::create_symlink(main, m_dir / "bin" / "app.kiln", error);
  if (error) GTEST_SKIP() << "no symbolic links here: " << error.message();
  kiln::Package package = kiln::Package::open_file((m_dir / "bin" / "app.kiln").string());
  package.kernel("hopper");
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("ops.cu", "sm_90")});
}

TEST_F(SplitPackage, ADamagedCompanionIsAnErrorNamingItNotASilentFallback) {
  fake->devices = {FakeDevice{90, false}};
  const std::string main = install({9});
  Bytes truncated = build_package(split_file(9));
  truncated.resize(truncated.size() / 2);
  const std::string companion = write("app.cc9.kiln", truncated);
  kiln::Package package = kiln::Package::open_file(main);
  const std::string message = error_of([&] { package.kernel("always"); }, KILN_STATUS_TRUNCATED);
  EXPECT_NE(message.find("app.kiln: its cubins for compute capability 9.x, "), std::string::npos) << message;
  EXPECT_NE(message.find(companion), std::string::npos) << message;
  EXPECT_TRUE(fake->loads().empty());
}

TEST_F(SplitPackage, AMainFileInMemoryUsesItsPtxAndSaysWhyItFindsNoCompanion) {
  fake->devices = {FakeDevice{90, false}};
  install({8, 9});
  kiln::Package package = open(build_package(split_file(0)));
  package.kernel("always");
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("ops.cu", "compute_80")});
  const std::string message = error_of([&] { package.kernel("hopper"); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE);
  EXPECT_NE(message.find("a package opened from memory cannot find"), std::string::npos) << message;
}

TEST_F(SplitPackage, ACompanionOpenedItselfIsAPackageOfItsCubins) {
  fake->devices = {FakeDevice{90, false}};
  install({9});
  kiln::Package package = kiln::Package::open_file((m_dir / "app.cc9.kiln").string());
  package.kernel("hopper");
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("ops.cu", "sm_90")});
  const std::string message = error_of([&] { package.kernel("older"); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE);
  EXPECT_NE(message.find("another file of the split package"), std::string::npos) << message;
}

TEST_F(SplitPackage, AMalformedCompanionListIsRefusedAtOpen) {
  PackageSpec spec = split_file(0);
  spec.metadata[1].second = "cc9 cc8";
  const std::string path = write("bad.kiln", build_package(spec));
  const std::string message = error_of([&] { kiln::Package::open_file(path); }, KILN_STATUS_CORRUPT);
  EXPECT_NE(message.find("split.files 'cc9 cc8' is not a list of companion files"), std::string::npos) << message;
}

}  // namespace
}  // namespace kiln::testing

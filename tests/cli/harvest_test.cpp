// kiln harvest and kiln build --add (issue 35, point 3): a program asks for three kernels its
// package lacks, the run-time fallback compiles them from the carried sources and records them in
// its cache; harvest turns the records into a manifest fragment (or adds them to kiln.toml in place),
// and the next build holds the three, so the fallback has nothing left to compile. Then every way a
// record, a fragment or the command line can be wrong.
#include "format/package_reader.hpp"
#include "kiln_runner.hpp"
#include "rtc/runtime_compiler.hpp"
#include "store/harvest_record.hpp"
#include "test_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* k_manifest =
    "# The carried fixture, two sources.\n"
    "name = \"carried\"\n"
    "targets = [\"sm_80\"]\n"
    "include_dirs = [\"include\"]\n"
    "carry_sources = true\n"
    "\n"
    "[[source]]\n"
    "path = \"kernels/scale.cu\"   # scales\n"
    "instantiate = [\n"
    "  \"ops::scale<float>\",  # the one we ship\n"
    "]\n"
    "defines = [\"FACTOR=3\"]\n"
    "\n"
    "[[source]]\n"
    "path = \"./kernels/shift.cu\"\n";

// What the program asks for: none is in the package.
const std::vector<std::string> k_asked = {"scale<double>", "ops::scale<int>", "shift<float>"};
const std::vector<std::string> k_resolved = {"ops::scale<double>", "ops::scale<int>", "ops::shift<float>"};

class Harvest : public ::testing::Test {
protected:
  Harvest() : m_project(m_dir.copy_project("carried")), m_cache(m_dir.path() / "cache") {
    write_text(m_project / "kiln.toml", k_manifest);
  }

  RunResult kiln(std::vector<std::string> args) {
    return run_kiln(args, m_project, {"KILN_CACHE_DIR=" + (m_dir.path() / "build-cache").string()});
  }
  std::vector<std::byte> build(const std::string& output, std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"build", "-o", output};
    args.insert(args.end(), more.begin(), more.end());
    const RunResult r = kiln(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return read_bytes(m_project / output);
  }
  // The fallback as the loader reaches it: a miss in the package, for a device it has no image of
  // its own for, compiled by NVRTC alone (no GPU), into the cache at m_cache. Returns its compiles.
  std::uint64_t ask(const std::vector<std::byte>& package, const std::vector<std::string>& names) {
    format::PackageReader reader;
    EXPECT_TRUE(reader.open(package, "carried.kiln"));
    rtc::CompiledCache cache(store::CacheSettings{true, m_cache, 0});
    rtc::RuntimeCompiler compiler(rtc::CompilerSettings{}, cache);
    for (const std::string& name : names) {
      if (reader.find_kernel(name)) continue;   // the package holds it: the loader never asks
      // Otherwise the fallback is asked (and records it again, for this package's content).
      const Result<rtc::Compiled> compiled = compiler.package_kernel(reader, "carried.kiln", name, "sm_80");
      EXPECT_TRUE(compiled.ok()) << error_text(compiled.error());
    }
    return cache.counters().compiles;
  }
  void record(store::HarvestRecord r) { store::write_harvest_record(m_cache, r); }
  static store::HarvestRecord sample(std::string asked, std::string expression, std::string source) {
    return store::HarvestRecord{std::move(asked), std::move(expression), std::move(source), "sm_80", "carried.kiln",
                                "carried", 1};
  }

  ScratchDir m_dir;
  fs::path m_project;
  fs::path m_cache;
};

bool needs_nvrtc() { return !fs::exists("/usr/local/cuda/lib64/libnvrtc.so.13"); }

TEST_F(Harvest, ThreeKernelsCompiledAtRunTimeAreInTheNextPackageAndTheFallbackCompilesNothing) {
  if (needs_nvrtc()) GTEST_SKIP() << "the run-time compile needs NVRTC";
  set_variable("CUDA_PATH", "/usr/local/cuda");
  const std::vector<std::byte> first = build("first.kiln");
  EXPECT_EQ(ask(first, k_asked), 3u);

  const RunResult harvest = kiln({"harvest", m_cache.string(), "--manifest", "kiln.toml", "-o", "harvested.toml"});
  ASSERT_EQ(harvest.exit_code, 0) << harvest.err;
  EXPECT_NE(harvest.err.find("note: 3 names to add"), std::string::npos) << harvest.err;
  const std::string fragment = read_text(m_project / "harvested.toml");
  const std::string from = "  # from " + m_cache.string() + ", sm_80\n";
  EXPECT_NE(fragment.find("[[source]]\npath = \"kernels/scale.cu\"\ninstantiate = [\n" + from +
                          "  \"ops::scale<double>\",\n" + from + "  \"ops::scale<int>\",\n]\n"),
            std::string::npos) << fragment;
  EXPECT_NE(fragment.find("[[source]]\npath = \"kernels/shift.cu\"\ninstantiate = [\n" + from +
                          "  \"ops::shift<float>\",\n]\n"),
            std::string::npos) << fragment;
  EXPECT_EQ(kiln({"harvest", m_cache.string(), "--manifest", "kiln.toml"}).out, fragment) << "stdout by default";

  const std::vector<std::byte> second = build("second.kiln", {"--add", "harvested.toml"});
  EXPECT_NE(read_text(m_project / "second.kiln.d").find("harvested.toml"), std::string::npos) << "an input of the build";
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(second, "second.kiln"));
  for (const std::string& name : k_resolved) {
    const std::optional<std::uint32_t> kernel = reader.find_kernel(name);
    ASSERT_TRUE(kernel) << name;
    EXPECT_EQ(reader.kernel_targets(*kernel).size(), 1u) << name;
  }
  const nlohmann::json report = nlohmann::json::parse(kiln({"inspect", "--json", "second.kiln", "--device", "8.0"}).out);
  for (const nlohmann::json& k : report["kernels"]) EXPECT_NE(k["loads"]["coverage"], "runtime-compile") << k.dump();
  // Asked again, the qualified names are the package's own; "scale<double>" and "shift<float>" still
  // miss its names (a package records the qualified name only) and reach the fallback, which finds
  // them compiled: nothing is compiled.
  EXPECT_EQ(ask(second, k_resolved), 0u) << "the fallback was asked for a harvested kernel";
  EXPECT_EQ(ask(second, k_asked), 0u) << "the fallback compiled a harvested kernel again";

  // Harvesting again finds nothing new: the names are listed now (through the fragment's build, or
  // here in the manifest --write makes), and --write's manifest builds the same package.
  const RunResult write = kiln({"harvest", m_cache.string(), "--manifest", "kiln.toml", "--write"});
  ASSERT_EQ(write.exit_code, 0) << write.err;
  const std::string edited = read_text(m_project / "kiln.toml");
  EXPECT_NE(edited.find("path = \"kernels/scale.cu\"   # scales\n"), std::string::npos) << edited;
  EXPECT_NE(edited.find("  \"ops::scale<float>\",  # the one we ship\n" + from + "  \"ops::scale<double>\",\n" + from +
                        "  \"ops::scale<int>\",\n]\ndefines"),
            std::string::npos) << edited;
  EXPECT_NE(edited.find("path = \"./kernels/shift.cu\"\ninstantiate = [\n" + from + "  \"ops::shift<float>\",\n]\n"),
            std::string::npos) << edited;
  // The same kernels and images: the packages differ only in the manifest each records.
  const auto kernels = [&](const std::string& package) {
    return nlohmann::json::parse(kiln({"inspect", "--json", package}).out)["kernels"];
  };
  build("third.kiln");
  EXPECT_EQ(kernels("third.kiln"), kernels("second.kiln")) << "--write and --add build the same kernels";
  // Five: the three of the first package, and the two unqualified asks of the second.
  const RunResult again = kiln({"harvest", m_cache.string(), "--manifest", "kiln.toml", "--write"});
  EXPECT_NE(again.err.find("note: 0 names to add; records skipped: 5 of names it lists already"), std::string::npos)
      << again.err;
  EXPECT_EQ(read_text(m_project / "kiln.toml"), edited);
}

TEST_F(Harvest, CachesMergeSortedWithOneCommentPerNameAndOtherRecordsAreCounted) {
  record(sample("shift<int>", "ops::shift<int>", "kernels/shift.cu"));
  store::HarvestRecord sm90 = sample("shift<int>", "ops::shift<int>", "kernels/shift.cu");
  sm90.target = "sm_90";
  record(sm90);
  record(sample("scale<float>", "ops::scale<float>", "kernels/scale.cu"));   // listed already
  record(sample("shift<long>", "ops::shift<long>", "kernels/private.cu"));   // not a source of this manifest
  store::HarvestRecord other = sample("shift<char>", "ops::shift<char>", "kernels/shift.cu");
  other.package_name = "another";
  record(other);
  const fs::path second_cache = m_dir.path() / "cache2";
  store::write_harvest_record(second_cache, sample("ops::shift<int>", "ops::shift<int>", "kernels/shift.cu"));
  store::write_harvest_record(second_cache, sample("ops::scale<short>", "ops::scale<short>", "kernels/scale.cu"));
  const RunResult r = kiln({"harvest", second_cache.string(), m_cache.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("note: 2 names to add; records skipped: 1 of other packages, 1 of sources kiln.toml does "
                       "not have, 1 of names it lists already"),
            std::string::npos) << r.err;
  EXPECT_NE(r.out.find("instantiate = [\n  # from " + second_cache.string() + ", sm_80\n  \"ops::scale<short>\",\n]"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  # from " + second_cache.string() + ", sm_80; " + m_cache.string() +
                       ", sm_80, sm_90\n  \"ops::shift<int>\",\n]"),
            std::string::npos) << r.out;
  EXPECT_LT(r.out.find("kernels/scale.cu"), r.out.find("kernels/shift.cu")) << "sorted by source";
}

TEST_F(Harvest, ADamagedOrImplausibleRecordIsSkippedWithAWarningNamingItsFile) {
  record(sample("shift<int>", "ops::shift<int>", "kernels/shift.cu"));
  record(sample("shift<int>", "other::thing<int>", "kernels/shift.cu"));   // not what shift<int> resolves to
  record(sample("shift<int>", "ops::shift<int>\"]\nx = [\"", "kernels/shift.cu"));   // refused when written
  // Code that would be pasted into the unit nvcc compiles: the asked name resolves to it, but it is no name.
  const std::string injected = "<int>, 0}; __global__ void evil(float* x) { x[0] = 1; } static void* z[] = {0";
  record(sample("shift" + injected, "ops::shift" + injected, "kernels/shift.cu"));
  fs::create_directories(m_cache / "harvest");
  write_text(m_cache / "harvest" / std::string(32, 'f'), "kiln-harvest 1\ngarbage");
  const RunResult r = kiln({"harvest", m_cache.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(std::string(32, 'f') + ": damaged harvest record; skipped"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the name 'other::thing<int>' is not what the runtime resolves 'shift<int>' to"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find(": 'ops::shift" + injected + "' is not a kernel's name expression"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("evil"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("note: 1 names to add"), std::string::npos) << r.err;
}

TEST_F(Harvest, WriteEditsALinkedManifestsTargetAndKeepsItsPermissions) {
  // As an editor would: the link stays a link and the file it names is edited; a manifest kept
  // private (0600) or group-readable (0640) does not come back readable by all.
  record(sample("shift<int>", "ops::shift<int>", "kernels/shift.cu"));
  const fs::path real = m_project / "manifests" / "kiln.toml";
  fs::create_directories(real.parent_path());
  fs::rename(m_project / "kiln.toml", real);
  fs::create_symlink(fs::path("manifests") / "kiln.toml", m_project / "kiln.toml");
  const fs::perms kept = fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read;
  fs::permissions(real, kept);
  const RunResult r = kiln({"harvest", m_cache.string(), "--write"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(m_project / "kiln.toml")) << "the link was replaced by a file";
  EXPECT_NE(read_text(real).find("\"ops::shift<int>\","), std::string::npos) << read_text(real);
  EXPECT_EQ(fs::status(real).permissions() & fs::perms::all, kept);
}

TEST_F(Harvest, CommandLineAndManifestErrors) {
  record(sample("shift<int>", "ops::shift<int>", "kernels/shift.cu"));
  const RunResult both = kiln({"harvest", m_cache.string(), "--write", "-o", "x.toml"});
  EXPECT_EQ(both.exit_code, 2) << both.err;
  EXPECT_NE(both.err.find("excludes"), std::string::npos) << both.err;
  EXPECT_EQ(kiln({"harvest", (m_dir.path() / "absent").string()}).exit_code, 2);
  EXPECT_EQ(kiln({"harvest"}).exit_code, 2);
  fs::create_directories(m_project / "a-directory");
  const RunResult unwritable = kiln({"harvest", m_cache.string(), "-o", "a-directory"});
  EXPECT_EQ(unwritable.exit_code, 4) << unwritable.err;
  EXPECT_NE(unwritable.err.find("a-directory"), std::string::npos) << unwritable.err;
  const RunResult no_manifest = kiln({"harvest", m_cache.string(), "--manifest", "absent.toml"});
  EXPECT_EQ(no_manifest.exit_code, 3);
  EXPECT_NE(no_manifest.err.find("absent.toml"), std::string::npos) << no_manifest.err;

  // An inline source cannot take a comment per name: --write refuses, and writes nothing.
  const std::string inline_manifest = "name = \"carried\"\ntargets = [\"sm_80\"]\ninclude_dirs = [\"include\"]\n"
                                      "source = [{path = \"kernels/shift.cu\"}]\n";
  write_text(m_project / "kiln.toml", inline_manifest);
  const RunResult in_place = kiln({"harvest", m_cache.string(), "--write"});
  EXPECT_EQ(in_place.exit_code, 3);
  EXPECT_NE(in_place.err.find("kiln.toml:4:11: error: the source 'kernels/shift.cu' is an inline table"),
            std::string::npos) << in_place.err;
  EXPECT_EQ(read_text(m_project / "kiln.toml"), inline_manifest);
}

TEST_F(Harvest, AFragmentNamesOnlyTheManifestsSourcesAndKnownKeys) {
  write_text(m_project / "unknown.toml", "[[source]]\npath = \"kernels/scale.cu\"\ninstanciate = [\"x\"]\n");
  RunResult r = kiln({"build", "-o", "x.kiln", "--add", "unknown.toml"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("unknown.toml:3:1: error"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("instanciate"), std::string::npos) << r.err;

  write_text(m_project / "other.toml", "[[source]]\npath = \"kernels/scale.cu\"\n\n[[source]]\n"
                                       "path = \"kernels/private.cu\"\ninstantiate = [\"k<int>\"]\n");
  r = kiln({"build", "-o", "x.kiln", "--add", "other.toml"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("other.toml:5:8: error: source path 'kernels/private.cu' is not a [[source]] of"),
            std::string::npos) << r.err;

  write_text(m_project / "broken.toml", "[[source]]\npath = \"kernels/scale.cu\"\ninstantiate = [\"k<int>\"\n");
  r = kiln({"build", "-o", "x.kiln", "--add", "broken.toml"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("broken.toml:3:25: error"), std::string::npos) << r.err;
  EXPECT_EQ(kiln({"build", "-o", "x.kiln", "--add", "absent.toml"}).exit_code, 2);

  write_text(m_project / "top.toml", "targets = [\"sm_90\"]\n");
  r = kiln({"build", "-o", "x.kiln", "--add", "top.toml"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("top.toml:1:1: error"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(m_project / "x.kiln"));

  write_text(m_project / "fine.toml", "[[source]]\npath = \"kernels/scale.cu\"\n");
  r = kiln({"build", "-o", "fine.toml", "--add", "fine.toml"});
  EXPECT_EQ(r.exit_code, 2) << "the output is an input";
  EXPECT_NE(r.err.find("the --add fragment"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kiln::test

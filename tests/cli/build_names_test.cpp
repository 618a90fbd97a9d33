// kiln build on tests/fixtures/projects/names: every spelling C++ allows for a kernel a host file
// asks for is a name of that kernel in the package, for an NVRTC unit (names.cu) and an nvcc unit
// (host_side.cu, found by demangling); one unresolvable request is one warning; a package that
// answers fewer names than asked for says so (an error with --strict); a kernel a file only
// declares is a warning when asked for, and `kiln scan --json` marks it "defined": false.
#include "format/package_reader.hpp"
#include "kiln_runner.hpp"
#include "package/kernel_names.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

class RequestSpellings : public ::testing::Test {
protected:
  RequestSpellings() : m_project(m_dir.copy_project("names")) {}

  RunResult build(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"build", "-o", "../names.kiln"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_kiln(args, m_project);
  }

  // The demangled name of the kernel `name` finds, or "" when it finds none.
  std::string found(const std::string& name) const {
    const std::optional<std::uint32_t> k = m_reader.find_kernel(name);
    return k ? package::canonical_kernel_name(m_reader.kernel(*k).lowered_name) : std::string();
  }

  void open() {
    m_bytes = read_bytes(m_dir.path() / "names.kiln");
    ASSERT_TRUE(m_reader.open(m_bytes));
  }

  ScratchDir m_dir;
  fs::path m_project;
  std::vector<std::byte> m_bytes;
  format::PackageReader m_reader;
};

// The request as written -> the kernel it names, as the demangler spells its symbol.
const std::vector<std::pair<std::string, std::string>> k_spellings = {
    {"type_kernel<const volatile float>", "type_kernel<float const volatile>"},
    {"type_kernel<volatile const float>", "type_kernel<float const volatile>"},
    {"type_kernel<float const*>", "type_kernel<float const*>"},
    {"type_kernel<float&>", "type_kernel<float&>"},
    {"type_kernel<float[4]>", "type_kernel<float [4]>"},
    {"nontype_kernel<'J'>", "nontype_kernel<(char)74>"},
    {"nontype_kernel<74>", "nontype_kernel<(char)74>"},
    {"ukernel<256u>", "ukernel<256u>"},
    {"ukernel<(unsigned)256>", "ukernel<256u>"},
    {"ikernel<-1>", "ikernel<-1>"},
    {"defkernel<float>", "defkernel<float, 256>"},
};

TEST_F(RequestSpellings, EverySpellingFindsItsKernelInBothUnits) {
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << "every request resolves:\n" << r.err;
  open();
  for (const auto& [written, kernel] : k_spellings) {
    EXPECT_EQ(found(written), kernel) << "NVRTC unit: " << written;
    EXPECT_EQ(found("h::" + written), "h::" + kernel) << "nvcc unit: h::" << written;
  }
  EXPECT_EQ(found("type_kernel<real_t>"), "type_kernel<float>") << "a typedef";
  EXPECT_EQ(found("h::type_kernel<h::real_t>"), "h::type_kernel<float>");
  EXPECT_EQ(found("enum_kernel<MyEnum::B>"), "enum_kernel<(MyEnum)1>") << "a scoped enumerator";
  EXPECT_EQ(found("h::enum_kernel<h::MyEnum::B>"), "h::enum_kernel<(h::MyEnum)1>");
  EXPECT_EQ(found("plain_kernel<P1>"), "plain_kernel<(Plain)1>") << "an unscoped enumerator";
  EXPECT_EQ(found("h::plain_kernel<h::P1>"), "h::plain_kernel<(h::Plain)1>");
  for (const char* b : {"(anonymous namespace)::b::hidden", "<unnamed>::b::hidden", "b::hidden"})
    EXPECT_EQ(found(b), "(anonymous namespace)::b::hidden") << b;
  for (const char* c : {"(anonymous namespace)::c::hidden", "<unnamed>::c::hidden"})
    EXPECT_EQ(found(c), "(anonymous namespace)::c::hidden") << c;
  for (const char* a : {"(anonymous namespace)::b::a", "<unnamed>::b::a", "b::a"})
    EXPECT_TRUE(m_reader.find_variable(a)) << a;
  EXPECT_EQ(found("type_kernel<double>"), "") << "a spelling nothing asked for is no name";
}

TEST_F(RequestSpellings, OneUnresolvableRequestIsOneWarningAndDropsNoOther) {
  const RunResult r = build({"--host-source", "src/bad.cpp"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string bogus = "src/bad.cpp:6:12: warning: the request for kernel 'type_kernel<bogus_t>'";
  ASSERT_NE(r.err.find(bogus), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(bogus, r.err.find(bogus) + 1), std::string::npos) << "one warning, not one per source:\n" << r.err;
  // An unclosed '<' is refused on its own line: its errors do not run into the next request's.
  EXPECT_NE(r.err.find("src/bad.cpp:7:12: warning: the request for kernel 'type_kernel<double'"), std::string::npos)
      << r.err;
  open();
  EXPECT_EQ(found("type_kernel<int>"), "type_kernel<int>");
  EXPECT_EQ(found("type_kernel<short>"), "type_kernel<short>");
  for (const auto& [written, kernel] : k_spellings) EXPECT_EQ(found(written), kernel) << written;
  EXPECT_NE(r.err.find("kiln: warning: the package holds 26 kernels and answers 35 of the 37 kernel names asked for; "
                       "not in it: 'type_kernel<bogus_t>' (src/bad.cpp:6:12), 'type_kernel<double' (src/bad.cpp:7:12)"),
            std::string::npos)
      << r.err;
}

TEST_F(RequestSpellings, FewerKernelsThanAskedForFailsWithStrict) {
  const RunResult r = build({"--host-source", "src/bad.cpp", "--strict"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_FALSE(fs::exists(m_dir.path() / "names.kiln"));
}

TEST_F(RequestSpellings, ARequestForAKernelThisPackageOnlyDeclaresIsAWarning) {
  const RunResult r = build({"--host-source", "src/shared.cpp"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("src/shared.cpp:5:48: warning: the runtime request for kernel 'elsewhere' names no kernel of "
                       "the kernel sources"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("not in it: 'elsewhere' (src/shared.cpp:5:48)"), std::string::npos) << r.err;
  open();
  EXPECT_EQ(found("elsewhere"), "");
}

TEST_F(RequestSpellings, ScanMarksAKernelTheFileOnlyDeclares) {
  const RunResult json = run_kiln({"scan", "--json", "kernels/names.cu"}, m_project);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json result = nlohmann::json::parse(json.out)["files"][0]["result"];
  std::map<std::string, bool> defined;
  for (const nlohmann::json& k : result["kernels"]) defined[k["qualified_name"]] = k["defined"];
  EXPECT_FALSE(defined.at("elsewhere"));
  EXPECT_TRUE(defined.at("type_kernel"));
  EXPECT_TRUE(defined.at("(anonymous namespace)::b::hidden"));

  const RunResult text = run_kiln({"scan", "kernels/names.cu"}, m_project);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const std::size_t apart = text.out.find("  declared only (defined elsewhere):\n    elsewhere(int * out)");
  EXPECT_NE(apart, std::string::npos) << text.out;
  EXPECT_LT(text.out.find("type_kernel"), apart) << "defined kernels are listed first, apart:\n" << text.out;
}

}  // namespace
}  // namespace kiln::test

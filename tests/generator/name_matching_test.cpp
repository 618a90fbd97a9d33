#include "package/kernel_names.hpp"
#include "package/name_matching.hpp"

#include <gtest/gtest.h>

namespace kiln::package {
namespace {

std::string exact(std::string_view name) { return comparable_name(name, MatchLevel::exact); }
std::string loose(std::string_view name) { return comparable_name(name, MatchLevel::loose); }

// Symbols as nvcc 13.0 names them (readelf on nvcc -cubin output), with their demangled names.
SymbolName symbol(const char* lowered) { return {lowered, canonical_kernel_name(lowered)}; }

TEST(ComparableName, SpellingsOfOneNameAgree) {
  EXPECT_EQ(exact("block_sum< float , 256U >"), exact("block_sum<float, 256u>"));
  EXPECT_EQ(exact("k<0x10>"), exact("k<16>"));
  EXPECT_EQ(exact("k<1'000>"), exact("k<1000>"));
  EXPECT_EQ(exact("k<3LL>"), exact("k<3ll>"));
  EXPECT_EQ(exact("k<unsigned>"), exact("k<unsigned int>"));
  EXPECT_EQ(exact("k<long int, short int, long unsigned int>"), exact("k<long, short, unsigned long>"));
  EXPECT_EQ(exact("k<const float *>"), exact("k<float const*>"));
  EXPECT_EQ(exact("k<const ns::vec<float, 4>&>"), exact("k<ns::vec<float, 4> const&>"));
  EXPECT_EQ(exact("::ns::k<::ns::T>"), exact("ns::k<ns::T>"));
  EXPECT_EQ(exact("_INTERNAL_fc3cd7b4_4_v_cu::table"), exact("table"));
  EXPECT_EQ(exact("k<vector<vector<int> > >"), exact("k<vector<vector<int>>>"));
}

TEST(ComparableName, DifferentNamesStayDifferent) {
  EXPECT_NE(exact("k<256u>"), exact("k<256>"));
  EXPECT_NE(exact("k<signed char>"), exact("k<char>"));
  EXPECT_NE(exact("k<unsigned long long>"), exact("k<unsigned long>"));
  EXPECT_NE(exact("(anonymous namespace)::k"), exact("k"));
  EXPECT_NE(exact("a::k"), exact("b::k"));
  EXPECT_NE(loose("k<float>"), loose("k<double>"));
}

TEST(ComparableName, LooseDropsSuffixesCastsAndUnnamedNamespaces) {
  EXPECT_EQ(loose("k<256u>"), loose("k<256>"));
  EXPECT_EQ(loose("lits<(char)97, true, 3l, 4ull, (short)-5>"), loose("lits<'a', true, 3, 4, -5>"));
  EXPECT_EQ(loose("(anonymous namespace)::atk<float>"), loose("atk<float>"));
}

TEST(MatchSymbol, ExactBeatsLooseAndCanonicalSpellingsResolve) {
  const std::vector<SymbolName> symbols = {
      symbol("_Z9block_sumIfLj256EEvPKT_PS0_"),
      symbol("_Z4litsILc97ELb1ELl3ELy4ELsn5EEvPi"),
      symbol("_Z4ptrkIPKfEvPKT_S2_"),
      symbol("_ZN36_GLOBAL__N__fc3cd7b4_4_v_cu__Z4hostv3atkIfEEvPT_"),
      symbol("_ZN2ns2skEPi"),
      symbol("plain"),
  };
  EXPECT_EQ(match_symbol("block_sum<float, 256U>", symbols), "_Z9block_sumIfLj256EEvPKT_PS0_");
  // clang prints the unsigned argument as "256" (its type is known): only the loose level sees it.
  EXPECT_EQ(match_symbol("block_sum<float, 256>", symbols), "_Z9block_sumIfLj256EEvPKT_PS0_");
  EXPECT_EQ(match_symbol("lits<'a', true, 3L, 4ULL, -5>", symbols), "_Z4litsILc97ELb1ELl3ELy4ELsn5EEvPi");
  EXPECT_EQ(match_symbol("ptrk<const float*>", symbols), "_Z4ptrkIPKfEvPKT_S2_");
  EXPECT_EQ(match_symbol("atk<float>", symbols), "_ZN36_GLOBAL__N__fc3cd7b4_4_v_cu__Z4hostv3atkIfEEvPT_");
  EXPECT_EQ(match_symbol("ns::sk", symbols), "_ZN2ns2skEPi");
  EXPECT_EQ(match_symbol("plain", symbols), "plain");
  EXPECT_EQ(match_symbol("block_sum<double, 256>", symbols), std::nullopt);
}

TEST(MatchSymbol, VariablesIgnoreTheAddressOfAndNvccsInternalPrefix) {
  const std::vector<SymbolName> symbols = {
      symbol("_ZN34_INTERNAL_fc3cd7b4_4_v_cu__Z4hostv36_GLOBAL__N__fc3cd7b4_4_v_cu__Z4hostv2avE"),
      symbol("_ZN2ns3tblE"), symbol("counter")};
  EXPECT_EQ(match_symbol("&ns::tbl", symbols), "_ZN2ns3tblE");
  EXPECT_EQ(match_symbol("counter", symbols), "counter");
  EXPECT_EQ(match_symbol("av", symbols), "_ZN34_INTERNAL_fc3cd7b4_4_v_cu__Z4hostv36_GLOBAL__N__fc3cd7b4_4_v_cu__Z4hostv2avE");
}

TEST(MatchSymbol, TwoLooseCandidatesAreNoMatch) {
  // k<256> and k<256u> from two templates of one name: "k<256l>" could be either.
  const std::vector<SymbolName> symbols = {symbol("_Z1kILi256EEvv"), symbol("_Z1kILj256EEvv")};
  EXPECT_EQ(match_symbol("k<256>", symbols), "_Z1kILi256EEvv");
  EXPECT_EQ(match_symbol("k<256u>", symbols), "_Z1kILj256EEvv");
  EXPECT_EQ(match_symbol("k<256l>", symbols), std::nullopt);
}

TEST(KernelNames, TemplateInstancesAreRecognizedByTheirReturnType) {
  EXPECT_TRUE(is_template_instance("_Z9block_sumIfLj256EEvPKT_PS0_"));
  EXPECT_TRUE(is_template_instance("_ZN36_GLOBAL__N__fc3cd7b4_4_v_cu__Z4hostv3atkIfEEvPT_"));
  EXPECT_FALSE(is_template_instance("_ZN2ns2skEPi"));
  EXPECT_FALSE(is_template_instance("plain"));
}

}  // namespace
}  // namespace kiln::package

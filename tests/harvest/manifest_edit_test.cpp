// harvest::add_to_manifest (kiln harvest --write): the names join the source's `instantiate` (or a
// new one after its `path` line) and every other byte of the user's text stays; arrays on one line
// or many, with or without a trailing comma, CRLF files, the last line without a newline; an inline
// source is refused, naming its place. And resolves_to, which decides whether a record's name is
// what the runtime resolves the asked one to.
#include "harvest/fragment_writer.hpp"
#include "harvest/manifest_edit.hpp"

#include <gtest/gtest.h>

namespace kiln::harvest {
namespace {

std::vector<HarvestedName> names(const std::string& source, std::vector<std::string> expressions) {
  std::vector<HarvestedName> out;
  for (std::string& e : expressions) out.push_back(HarvestedName{source, std::move(e), {Origin{"/c", {"sm_90"}}}});
  return out;
}

std::string edit(const std::string& text, const std::vector<HarvestedName>& added) {
  Result<std::string> edited = add_to_manifest(text, "kiln.toml", added);
  EXPECT_TRUE(edited) << (edited ? "" : edited.error().message);
  return edited ? *edited : std::string();
}

TEST(ManifestEdit, AOneLineArrayWithoutATrailingCommaGetsTheNamesBeforeItsBracket) {
  EXPECT_EQ(edit("[[source]]\npath = \"a.cu\"\ninstantiate = [\"k<int>\"] # mine\n", names("a.cu", {"k<float>", "k<char>"})),
            "[[source]]\npath = \"a.cu\"\ninstantiate = [\"k<int>\",\n  # from /c, sm_90\n  \"k<float>\",\n"
            "  # from /c, sm_90\n  \"k<char>\",\n] # mine\n");
}

TEST(ManifestEdit, AManyLineArrayKeepsItsBracketLineAndItsComments) {
  const std::string text = "[[source]]\npath = \"a.cu\"\ninstantiate = [\n  \"k<int>\" # one\n  # more later\n]\n";
  EXPECT_EQ(edit(text, names("a.cu", {"k<float>"})),
            "[[source]]\npath = \"a.cu\"\ninstantiate = [\n  \"k<int>\", # one\n  # more later\n"
            "  # from /c, sm_90\n  \"k<float>\",\n]\n");
  EXPECT_EQ(edit("[[source]]\npath = \"a.cu\"\ninstantiate = []\n", names("a.cu", {"k<float>"})),
            "[[source]]\npath = \"a.cu\"\ninstantiate = [\n  # from /c, sm_90\n  \"k<float>\",\n]\n");
}

TEST(ManifestEdit, ASourceWithoutInstantiateGetsOneAfterItsPathLine) {
  EXPECT_EQ(edit("[[source]]\npath = \"./a.cu\" # é\ndefines = [\"X\"]\n[[source]]\npath = \"b.cu\"",
                 names("a.cu", {"k<\"q\\\\>"})),
            "[[source]]\npath = \"./a.cu\" # é\ninstantiate = [\n  # from /c, sm_90\n  \"k<\\\"q\\\\\\\\>\",\n]\n"
            "defines = [\"X\"]\n[[source]]\npath = \"b.cu\"");
  EXPECT_EQ(edit("[[source]]\npath = \"b.cu\"", names("b.cu", {"k<int>"})),
            "[[source]]\npath = \"b.cu\"\ninstantiate = [\n  # from /c, sm_90\n  \"k<int>\",\n]\n");
}

TEST(ManifestEdit, ACrlfManifestGetsCrlfLines) {
  EXPECT_EQ(edit("[[source]]\r\npath = \"a.cu\"\r\n", names("a.cu", {"k<int>"})),
            "[[source]]\r\npath = \"a.cu\"\r\ninstantiate = [\r\n  # from /c, sm_90\r\n  \"k<int>\",\r\n]\r\n");
}

TEST(ManifestEdit, TheNamesGoToTheSourceWithoutAVariant) {
  EXPECT_EQ(edit("[[source]]\npath = \"a.cu\"\nvariant = \"f64\"\n[[source]]\npath = \"a.cu\"\n", names("a.cu", {"k<int>"})),
            "[[source]]\npath = \"a.cu\"\nvariant = \"f64\"\n[[source]]\npath = \"a.cu\"\ninstantiate = [\n"
            "  # from /c, sm_90\n  \"k<int>\",\n]\n");
}

TEST(ManifestEdit, InlineSourcesAndOtherShapesAreRefusedNamingThePlace) {
  Result<std::string> r = add_to_manifest("source = [{path = \"a.cu\"}]\n", "kiln.toml", names("a.cu", {"k<int>"}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where.line, 1);
  EXPECT_EQ(r.error().where.column, 11);
  EXPECT_NE(r.error().message.find("inline table"), std::string::npos);
  r = add_to_manifest("[[source]]\npath = \"a.cu\"\ninstantiate = \"k<int>\"\n", "kiln.toml", names("a.cu", {"k<long>"}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where.line, 3);
  EXPECT_NE(r.error().message.find("'instantiate' of 'a.cu' is not an array"), std::string::npos);
  r = add_to_manifest("[[source]]\npath = \"a.cu\"\n", "kiln.toml", names("b.cu", {"k<long>"}));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("no [[source]] has path 'b.cu'"), std::string::npos);
}

TEST(ManifestEdit, TomlStringsEscapeQuotesBackslashesAndControls) {
  EXPECT_EQ(toml_string("a\"b\\c\n\x7f"), "\"a\\\"b\\\\c\\u000A\\u007F\"");
}

TEST(ResolvesTo, TheSameNameOrItQualifiedWithTheSameArguments) {
  EXPECT_TRUE(resolves_to("scale<double>", "ops::scale<double>"));
  EXPECT_TRUE(resolves_to("ops::scale< double >", "ops::scale<double>"));
  EXPECT_TRUE(resolves_to("::k", "k"));
  EXPECT_FALSE(resolves_to("scale<double>", "ops::scale<float>"));
  EXPECT_FALSE(resolves_to("scale<double>", "opsscale<double>"));
  EXPECT_FALSE(resolves_to("scale<double>", "other::thing<double>"));
  EXPECT_FALSE(resolves_to("", "k"));
}

}  // namespace
}  // namespace kiln::harvest

// The table against NVRTC's own documentation (the "Supported Compile Options" of the toolkit's
// nvrtc.h): every option it documents is a row, under both its names, and every row but nvcc's own
// is documented. A new toolkit that adds an option fails here until the table says what it does.
#include "options/option_table.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace kiln::options {
namespace {

// {long name, short name} of each "- \c --name ... (\c -short)" item of the options group.
std::vector<std::pair<std::string, std::string>> documented_options() {
  std::ifstream in(KILN_NVRTC_HEADER);
  std::stringstream text;
  text << in.rdbuf();
  const std::string header = text.str();
  const std::size_t begin = header.find("\\defgroup options");
  const std::size_t end = header.find("*/", begin);
  std::vector<std::pair<std::string, std::string>> out;
  if (begin == std::string::npos) return out;
  const std::string group = header.substr(begin, end - begin);
  const std::regex item(R"(\*\s+- \\c --([A-Za-z0-9_-]+)[^\n]*?(?:\(\\c -([A-Za-z0-9_-]+)[^)]*\))?\s*\n)");
  for (std::sregex_iterator it(group.begin(), group.end(), item), stop; it != stop; ++it)
    out.emplace_back((*it)[1].str(), (*it)[2].str());
  return out;
}

TEST(OptionTable, EveryOptionNvrtcDocumentsIsARowUnderBothNames) {
  const auto documented = documented_options();
  ASSERT_GE(documented.size(), 50u) << "cannot read the options of " << KILN_NVRTC_HEADER;
  for (const auto& [name, short_name] : documented) {
    const OptionSpec* spec = find_option(name);
    ASSERT_NE(spec, nullptr) << "--" << name << " is documented by NVRTC but not in Kiln's table";
    EXPECT_EQ(spec->name, name);
    if (!short_name.empty()) {
      EXPECT_EQ(find_option(short_name), spec) << "-" << short_name;
    }
  }
}

TEST(OptionTable, EveryRowButNvccsOwnIsDocumentedAndSaysWhatItDoes) {
  std::set<std::string> documented;
  for (const auto& [name, short_name] : documented_options()) documented.insert(name);
  std::set<std::string_view> names;
  for (const OptionSpec& spec : option_table()) {
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name << " twice";
    if (spec.nvrtc != Nvrtc::lacks || !spec.refused.empty()) {
      EXPECT_TRUE(documented.count(std::string(spec.name))) << spec.name << " is not an NVRTC 13.0 option";
    }
    // A row is refused, reaches at least one compiler, or is one the plan acts on (-rdc).
    EXPECT_TRUE(!spec.refused.empty() || spec.nvrtc == Nvrtc::passed || spec.link != Link::none ||
                spec.nvcc == Nvcc::same || spec.nvrtc == Nvrtc::planned)
        << spec.name;
    if (spec.link != Link::none && spec.link != Link::fast_math) {
      EXPECT_FALSE(spec.link_name.empty()) << spec.name;
    }
  }
}

// What `ptxas --help` prints of one option: "--name <value> (-short)" or "--name (-short)".
TEST(OptionTable, EveryPtxasOptionXptxasPassesIsOneTheToolkitsPtxasDocuments) {
  FILE* pipe = popen(KILN_PTXAS " --help 2>&1", "r");
  ASSERT_NE(pipe, nullptr);
  std::string help;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) help += buffer;
  pclose(pipe);
  ASSERT_NE(help.find("--options-file"), std::string::npos) << "cannot read " KILN_PTXAS " --help";
  for (const PtxasOptionSpec& spec : ptxas_option_table()) {
    // (--def-load-cache takes a value its help line does not show.)
    const std::regex row("\\n--" + std::string(spec.name) + (spec.takes_value ? "( <[^>]+>)?" : "") + " [^\\n]*\\(-" +
                         std::string(spec.short_name) + "\\)");
    EXPECT_TRUE(std::regex_search(help, row)) << "--" << spec.name << " (-" << spec.short_name << ")";
    const std::string long_form = "--" + std::string(spec.name) + (spec.takes_value ? "=1" : "");
    const std::string short_form = "-" + std::string(spec.short_name) + (spec.takes_value ? "=1" : "");
    for (const std::string& form : {long_form, short_form}) {
      const Status passed = check_ptxas_option(form);
      EXPECT_TRUE(passed.ok()) << form << ": " << passed.error().message;
    }
  }
}

}  // namespace
}  // namespace kiln::options

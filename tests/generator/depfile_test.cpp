#include "package/depfile.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>

namespace kiln::package {
namespace {

namespace fs = std::filesystem;

std::string text_of(const fs::path& target, const std::vector<fs::path>& inputs) {
  Result<std::string> text = depfile_text(target, inputs);
  if (!text) throw std::runtime_error(text.error().message);
  return *text;
}

TEST(Depfile, ListsEveryInputAfterTheTarget) {
  EXPECT_EQ(text_of("out/app.kiln", {"/src/kiln.toml", "/src/a.cu"}),
            "out/app.kiln: \\\n  /src/kiln.toml \\\n  /src/a.cu\n");
}

TEST(Depfile, EscapesSpacesHashesAndDollars) {
  EXPECT_EQ(text_of("a b.kiln", {"/x/my dir/#h$.cuh"}), "a\\ b.kiln: \\\n  /x/my\\ dir/\\#h$$.cuh\n");
}

// N backslashes before a space or '#' are written as 2N+1, the spelling Ninja and Make read back as N.
TEST(Depfile, DoublesTheBackslashesBeforeAnEscapedByte) {
  EXPECT_EQ(text_of("o", {"/x/a\\ b", "/x/c\\\\#d", "/x/e\\f"}),
            "o: \\\n  /x/a\\\\\\ b \\\n  /x/c\\\\\\\\\\#d \\\n  /x/e\\f\n");
}

TEST(Depfile, EscapesColons) {
  EXPECT_EQ(text_of("a:b.kiln", {"/x/c:d.cuh"}), "a\\:b.kiln: \\\n  /x/c\\:d.cuh\n");
}

TEST(Depfile, ANameItCannotHoldIsAnErrorNamingIt) {
  for (const std::string bad : {"/x/a\nb.cuh", "/x/a\rb.cuh", "/x/a\tb.cuh", "/x/ends\\"}) {
    const Result<std::string> text = depfile_text("o.kiln", {"/src/k.cu", bad});
    ASSERT_FALSE(text) << bad;
    EXPECT_NE(text.error().message.find("'" + bad + "'"), std::string::npos) << text.error().message;
    EXPECT_NE(text.error().message.find("which a Makefile depfile cannot hold"), std::string::npos);
  }
  EXPECT_FALSE(depfile_text("o\n.kiln", {"/src/k.cu"})) << "the target too";
}

// Bytes Make reads as syntax or Ninja ends a name at, which no escape brings back: refused, naming
// the file, the byte and what would read it otherwise. A ';' would be a recipe Make runs.
TEST(Depfile, ANameMakeOrNinjaWouldReadAsSomethingElseIsRefused) {
  const struct {
    std::string name;
    const char* said;
  } cases[] = {
      {"/x/a;touch PWNED.cuh", "a ';' in its name (Make reads it as the start of a recipe)"},
      {"/x/a|b.cuh", "a '|' in its name (Make reads it as the start of order-only prerequisites)"},
      {"/x/SHELL=sh.cuh", "a '=' in its name (Make reads it as a variable assignment)"},
      {"/x/k*.cuh", "a '*' in its name (Make expands it as a wildcard)"},
      {"/x/k?.cuh", "a '?' in its name (Make expands it as a wildcard)"},
      {"/x/k[1].cuh", "a '[' in its name (Make expands it as a wildcard)"},
      {"/x/lib(member).cuh", "a '(' in its name (Make reads it as an archive member)"},
      {"/x/a&b.cuh", "a '&' in its name (Ninja ends a name there)"},
      {"/x/q'u.cuh", "a ''' in its name (Ninja ends a name there)"},
      {"/x/dq\"x.cuh", "a '\"' in its name (Ninja ends a name there)"},
      {"/x/`id`.cuh", "a '`' in its name (Ninja ends a name there)"},
      {"/x/a<b.cuh", "a '<' in its name (Ninja ends a name there)"},
      {"/x/bell\a.cuh", "the byte 0x07 in its name (Ninja ends a name there)"},
  };
  for (const auto& c : cases) {
    const Result<std::string> text = depfile_text("o.kiln", {"/src/k.cu", c.name});
    ASSERT_FALSE(text) << c.name;
    EXPECT_EQ(text.error().message, "'" + c.name + "' has " + c.said + ", which a Makefile depfile cannot hold");
  }
  EXPECT_FALSE(depfile_text("o;x.kiln", {"/src/k.cu"})) << "the target too";
}

// A fresh directory, removed with what it holds however the test ends.
struct FreshDirectory {
  explicit FreshDirectory(const std::string& tag)
      : path(fs::temp_directory_path() / ("kiln-depfile-" + tag + "-" + std::to_string(getpid()) + "-" +
                                          std::to_string(std::random_device{}()))) {
    fs::create_directories(path);
  }
  ~FreshDirectory() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  fs::path path;
};

std::string output_of(const std::string& command) {
  std::string out;
  if (std::FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
    pclose(pipe);
  }
  return out;
}

// Names a depfile holds, with bytes it escapes and bytes a shell reads into.
const std::vector<std::string> k_odd_names = {
    "a b.cuh",           "#hash.cuh",       "$HOME.cuh",         "${x}.cuh",  "back\\slash.cuh", "back\\ space.cuh",
    "two\\\\ spaces.cuh", "percent%.cuh",   "tilde~.cuh",        "a,b@c!.cuh", "caf\xc3\xa9.cuh"};

// GCC's -MD is what Ninja and Make are written to read: every name is written as GCC writes it (but
// ':', which GCC leaves bare and Kiln escapes: EscapesColons, MakeReadsBack...).
TEST(Depfile, WritesEveryNameAsGccsMdDoes) {
  const FreshDirectory fresh("gcc");
  const fs::path& dir = fresh.path;
  std::string includes;
  for (const std::string& name : k_odd_names) {
    std::ofstream(dir / name) << "";
    includes += "#include <" + name + ">\n";   // no escapes in a header name: '"' ends a quoted one
  }
  std::ofstream(dir / "m.c") << includes;
  ASSERT_EQ(std::system(("cd '" + dir.string() + "' && gcc -E -I. -MD -MF m.d m.c -o /dev/null").c_str()), 0);
  std::ifstream in(dir / "m.d");
  std::string gcc((std::istreambuf_iterator<char>(in)), {});
  for (const std::string& name : k_odd_names) {
    const std::string kiln = text_of("m.o", {name});
    const std::string escaped = kiln.substr(std::string("m.o: \\\n  ").size(), kiln.size() - std::string("m.o: \\\n  ").size() - 1);
    const std::size_t at = gcc.find(" " + escaped);
    EXPECT_TRUE(at != std::string::npos && (at + 1 + escaped.size() == gcc.size() ||
                                            std::string(" \n").find(gcc[at + 1 + escaped.size()]) != std::string::npos))
        << name << " written as " << escaped << "\n" << gcc;
  }
}

// A file for each name a depfile holds (k_odd_names, a plain one and one with ':') in `dir`.
std::vector<fs::path> files_named_oddly(const fs::path& dir) {
  std::vector<std::string> names = k_odd_names;
  names.insert(names.end(), {"plain.cuh", "c:olon.cuh"});
  std::vector<fs::path> files;
  for (const std::string& name : names) {
    std::ofstream(dir / name) << "x";
    files.push_back(dir / name);
  }
  return files;
}

// What Ninja (1.11, Debian 12's) reads back: every name Kiln writes, as it is. (Ninja 1.11 splits names
// at bytes GCC writes as they are, ';', '&', '|', quotes, '*', backticks: Kiln refuses those.)
TEST(Depfile, NinjaReadsBackTheNamesItCanHoldAsTheyAre) {
  const FreshDirectory fresh("ninja");
  const fs::path& dir = fresh.path;
  const std::vector<fs::path> inputs = files_named_oddly(dir);
  // The rule's touch writes no depfile: ninja reads the one written here once the command is done.
  std::ofstream(dir / "out.d") << text_of(dir / "out", inputs);
  std::ofstream(dir / "build.ninja") << "rule make\n  command = touch $out\n  depfile = $out.d\n  deps = gcc\n"
                                        "build out: make\n";
  ASSERT_EQ(std::system(("cd '" + dir.string() + "' && ninja >/dev/null 2>&1").c_str()), 0);
  const std::string listed = output_of("cd '" + dir.string() + "' && ninja -t deps out");
  for (const fs::path& input : inputs)
    EXPECT_NE(listed.find("    " + input.string() + "\n"), std::string::npos) << input << "\n" << listed;
}

// What GNU Make reads back: for every name Kiln writes, touching that file (and only it) makes the
// target out of date, with no error and no command run but the rule's own.
TEST(Depfile, MakeReadsBackTheNamesItWritesAsTheyAre) {
  const FreshDirectory fresh("make");
  const fs::path& dir = fresh.path;
  const std::vector<fs::path> inputs = files_named_oddly(dir);
  std::ofstream(dir / "out.d") << text_of("out", inputs);   // the target as the Makefile names it
  std::ofstream(dir / "Makefile") << "include out.d\n\nout:\n\ttouch out\n";
  const std::string make = "cd '" + dir.string() + "' && make -q out >/dev/null 2>&1; echo $?";
  ASSERT_EQ(std::system(("cd '" + dir.string() + "' && sleep 0.01 && touch out").c_str()), 0);
  ASSERT_EQ(output_of(make), "0\n") << "Make finds the target out of date, or fails, before any file changed";
  for (const fs::path& input : inputs) {
    ASSERT_EQ(std::system(("cd '" + dir.string() + "' && sleep 0.01 && touch out").c_str()), 0);
    fs::last_write_time(input, fs::last_write_time(dir / "out") + std::chrono::seconds(1));
    EXPECT_EQ(output_of(make), "1\n") << input << ": Make does not see it as a prerequisite";
    fs::last_write_time(input, fs::last_write_time(dir / "out") - std::chrono::seconds(10));
  }
}

}  // namespace
}  // namespace kiln::package

// Where the cache is and how large it may grow, from flags and variables; every error names its source.
#include "store/cache_settings.hpp"
#include "store/size_spec.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace kiln::store {
namespace {

Environment table(std::map<std::string, std::string> values) {
  return [values](const char* name) -> std::optional<std::string> {
    const auto it = values.find(name);
    return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

TEST(SizeSpec, ReadsCcacheSyntax) {
  EXPECT_EQ(*parse_size("5G", "X"), 5'000'000'000u);
  EXPECT_EQ(*parse_size("500M", "X"), 500'000'000u);
  EXPECT_EQ(*parse_size("1.5GiB", "X"), 1610612736u);
  EXPECT_EQ(*parse_size("64Ki", "X"), 65536u);
  EXPECT_EQ(*parse_size("2k", "X"), 2000u);
  EXPECT_EQ(*parse_size("3", "X"), 3'000'000'000u) << "a bare number is in G, as in ccache";
  EXPECT_EQ(*parse_size("0", "X"), 0u);
}

TEST(SizeSpec, ErrorsNameTheVariableAndTheText) {
  for (const char* bad : {"", "G", "5X", "5 G", "1.2.3G", "-1G", "5Gi B", "99999999999T"}) {
    const Result<std::uint64_t> r = parse_size(bad, "KILN_CACHE_MAX_SIZE");
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().message.rfind("KILN_CACHE_MAX_SIZE: '" + std::string(bad) + "' is not a size", 0), 0u)
        << r.error().message;
  }
}

// The variable that gives the user's cache directory on this system, set.
#if defined(_WIN32)
const std::pair<const char*, const char*> k_home{"LOCALAPPDATA", "C:\\l"};
#else
const std::pair<const char*, const char*> k_home{"HOME", "/h"};
#endif

TEST(CacheSettings, DirectoryFromFlagThenVariablesThenHome) {
#if defined(_WIN32)
  EXPECT_EQ(cache_settings("", table({{"LOCALAPPDATA", "C:\\Users\\u\\AppData\\Local"}}))->directory,
            std::filesystem::path("C:\\Users\\u\\AppData\\Local\\kiln"));
  EXPECT_TRUE(cache_settings("", table({{"HOME", "/h"}, {"XDG_CACHE_HOME", "/x"}}))->directory.empty())
      << "Windows' cache is under LOCALAPPDATA, never HOME";
  EXPECT_EQ(cache_settings("", table({{"LOCALAPPDATA", "C:\\l"}, {"KILN_CACHE_DIR", "D:\\k"}}))->directory, "D:\\k");
  EXPECT_FALSE(cache_settings("", table({{"LOCALAPPDATA", "AppData\\Local"}}))->enabled) << "relative: passed over";
#else
  EXPECT_EQ(cache_settings("", table({{"HOME", "/h"}}))->directory, "/h/.cache/kiln");
  EXPECT_EQ(cache_settings("", table({{"HOME", "/h"}, {"XDG_CACHE_HOME", "/x"}}))->directory, "/x/kiln");
  EXPECT_EQ(cache_settings("", table({{"HOME", "/h"}, {"XDG_CACHE_HOME", "/x"}, {"KILN_CACHE_DIR", "/k"}}))->directory,
            "/k");
  // Relative: passed over (the XDG specification's rule), so that the cache is not wherever the
  // process runs.
  EXPECT_EQ(cache_settings("", table({{"HOME", "/h"}, {"XDG_CACHE_HOME", "x"}}))->directory, "/h/.cache/kiln");
  EXPECT_FALSE(cache_settings("", table({{"HOME", "h"}}))->enabled);
  EXPECT_FALSE(cache_settings("", table({{"HOME", "h"}, {"XDG_CACHE_HOME", "./x"}}))->enabled);
#endif
#if defined(_WIN32)
  EXPECT_EQ(cache_settings("C:\\f", table({{"KILN_CACHE_DIR", "D:\\k"}}))->directory, "C:\\f");
#else
  EXPECT_EQ(cache_settings("/f", table({{"KILN_CACHE_DIR", "/k"}}))->directory, "/f");
#endif
  const Result<CacheSettings> none = cache_settings("", table({}));
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->enabled) << "no directory: no cache";
}

TEST(CacheSettings, OnOffAndMaximumSize) {
  EXPECT_TRUE(cache_settings("", table({k_home}))->enabled);
  EXPECT_EQ(cache_settings("", table({k_home}))->max_size, k_default_max_size);
  for (const char* off : {"0", "false", "no", "off"})
    EXPECT_FALSE(cache_settings("", table({k_home, {"KILN_CACHE", off}}))->enabled) << off;
  EXPECT_TRUE(cache_settings("", table({k_home, {"KILN_CACHE", "1"}}))->enabled);
  const Result<CacheSettings> bad = cache_settings("", table({k_home, {"KILN_CACHE", "maybe"}}));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message.rfind("KILN_CACHE=maybe: ", 0), 0u) << bad.error().message;
  EXPECT_EQ(cache_settings("", table({k_home, {"KILN_CACHE_MAX_SIZE", "500M"}}))->max_size, 500'000'000u);
  const Result<CacheSettings> size = cache_settings("", table({k_home, {"KILN_CACHE_MAX_SIZE", "lots"}}));
  ASSERT_FALSE(size);
  EXPECT_NE(size.error().message.find("KILN_CACHE_MAX_SIZE: 'lots'"), std::string::npos) << size.error().message;
}

// A relative KILN_CACHE_DIR or --cache-dir is taken under the working directory when the settings are
// read, and kept there: a process that changes its directory afterwards still names the same cache.
TEST(CacheSettings, ARelativeDirectoryIsPinnedUnderTheWorkingDirectory) {
  namespace fs = std::filesystem;
  const fs::path before = fs::current_path();
  const fs::path work = fs::temp_directory_path() / ("kiln-cache-settings-" + std::to_string(std::random_device{}()));
  fs::create_directories(work / "elsewhere");
  fs::current_path(work);
  const Result<CacheSettingsText> text = cache_settings_text(table({k_home, {"KILN_CACHE_DIR", ".kiln-cache"}}));
  const Result<CacheSettings> path = cache_settings("", table({k_home, {"KILN_CACHE_DIR", "./a/../cache"}}));
  const Result<CacheSettings> flag = cache_settings("flagged", table({k_home}));
  // Read again from another directory: the same cache, since the settings hold an absolute path.
  fs::current_path(work / "elsewhere");
  const fs::path seen_elsewhere = fs::absolute(text ? fs::path(text->directory) : fs::path());
  fs::current_path(before);
  std::error_code ignored;
  fs::remove_all(work, ignored);
  ASSERT_TRUE(text && path);
  EXPECT_TRUE(fs::path(text->directory).is_absolute()) << text->directory;
  EXPECT_EQ(fs::path(text->directory), (fs::absolute(work) / ".kiln-cache").lexically_normal());
  EXPECT_EQ(seen_elsewhere, fs::path(text->directory)) << "not under the directory the process moved to";
  EXPECT_EQ(path->directory, (fs::absolute(work) / "cache").lexically_normal()) << "and made plain";
  ASSERT_TRUE(flag);
  EXPECT_EQ(flag->directory, (fs::absolute(work) / "flagged").lexically_normal()) << "--cache-dir alike";
#if defined(_WIN32)
  EXPECT_EQ(cache_settings_text(table({{"KILN_CACHE_DIR", "D:\\k"}}))->directory, "D:\\k") << "an absolute one as given";
#else
  EXPECT_EQ(cache_settings_text(table({{"KILN_CACHE_DIR", "/k/./x/"}}))->directory, "/k/./x/") << "an absolute one as given";
#endif
}

// The loader's direct hits read the cache through cache_settings_text: the same directory as the
// compile library's cache_settings writes to, for every way of naming it, and the same refusals.
TEST(CacheSettings, TheTextFormNamesTheSameDirectory) {
#if defined(_WIN32)
  const std::vector<std::map<std::string, std::string>> environments = {
      {{"LOCALAPPDATA", "C:\\Users\\u\\AppData\\Local"}}, {{"LOCALAPPDATA", "C:\\l\\"}},
      {{"LOCALAPPDATA", "C:\\l"}, {"KILN_CACHE_DIR", "D:\\k"}}, {{"HOME", "/h"}}};
#else
  const std::vector<std::map<std::string, std::string>> environments = {
      {{"HOME", "/h"}}, {{"HOME", "/h/"}}, {{"HOME", "/h"}, {"XDG_CACHE_HOME", "/x/"}},
      {{"HOME", "/h"}, {"XDG_CACHE_HOME", "/x"}, {"KILN_CACHE_DIR", "/k"}}, {{"KILN_CACHE_DIR", ""}}, {}};
#endif
  for (const auto& values : environments) {
    const Result<CacheSettings> path = cache_settings("", table(values));
    const Result<CacheSettingsText> text = cache_settings_text(table(values));
    ASSERT_TRUE(path && text);
    EXPECT_EQ(std::filesystem::path(text->directory), path->directory) << text->directory;
    EXPECT_EQ(text->enabled && !text->directory.empty(), path->enabled) << text->directory;
    EXPECT_EQ(text->max_size, path->max_size);
  }
  EXPECT_FALSE(cache_settings_text(table({k_home, {"KILN_CACHE", "maybe"}})));
  EXPECT_FALSE(cache_settings_text(table({k_home, {"KILN_CACHE_MAX_SIZE", "lots"}})));
  EXPECT_FALSE(cache_settings_text(table({k_home, {"KILN_CACHE", "off"}}))->enabled);
}

}  // namespace
}  // namespace kiln::store

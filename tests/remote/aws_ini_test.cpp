#include "remote/s3/aws_ini.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <random>

namespace kiln::remote {
namespace {

namespace fs = std::filesystem;

IniSections ini_of(const std::string& text) {
  Result<IniSections> sections = parse_aws_file(text, "FILE");
  EXPECT_TRUE(sections) << (sections ? "" : sections.error().message);
  return sections ? *sections : IniSections{};
}

std::string ini_error_of(const std::string& text) {
  Result<IniSections> sections = parse_aws_file(text, "FILE");
  EXPECT_FALSE(sections);
  return sections ? "" : sections.error().message;
}

TEST(AwsIni, SectionsAndValuesAsTheAwsCliReadsThem) {
  const IniSections sections = ini_of("# a comment\n[default]\naws_access_key_id = AKID\n; another\n"
                                      "AWS_Secret_Access_Key=s3cr3t\n\n[profile ci]\nregion: eu-west-3\n");
  ASSERT_EQ(sections.size(), 2u);
  EXPECT_EQ(sections.at("default").at("aws_access_key_id"), "AKID");
  EXPECT_EQ(sections.at("default").at("aws_secret_access_key"), "s3cr3t");   // names in lower case
  EXPECT_EQ(sections.at("profile ci").at("region"), "eu-west-3");
  // Windows line ends, and a later value of a name replaces the earlier one.
  const IniSections crlf = ini_of("[p]\r\nkey = one\r\nkey = two\r\n");
  EXPECT_EQ(crlf.at("p").at("key"), "two");
}

// Debian's inih reads lines of at most 199 characters; an STS session token is longer.
TEST(AwsIni, ALineOfAnyLengthReadsWhole) {
  std::string token;
  std::mt19937 random(34);
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";
  for (int i = 0; i < 2000; ++i) token += alphabet[random() % alphabet.size()];
  for (std::size_t length : {197u, 198u, 199u, 200u, 201u, 396u, 397u, 1000u, 2000u}) {
    const std::string value = token.substr(0, length);
    const IniSections sections =
        ini_of("[ci]\naws_session_token = " + value + "\naws_access_key_id = AKID\n# " + std::string(500, 'c') + "\n");
    EXPECT_EQ(sections.at("ci").at("aws_session_token"), value) << length;
    // A long comment after a value is not taken as its continuation.
    EXPECT_EQ(sections.at("ci").at("aws_access_key_id"), "AKID") << length;
    EXPECT_EQ(sections.at("ci").size(), 2u);
  }
  // A long value as the file's last line, with no line end.
  EXPECT_EQ(ini_of("[ci]\nt=" + token).at("ci").at("t"), token);
}

TEST(AwsIni, AnIndentedLineContinuesTheValueOnANewLine) {
  const IniSections sections = ini_of("[ci]\naws_secret_access_key = first\n  second\nregion = x\n");
  EXPECT_EQ(sections.at("ci").at("aws_secret_access_key"), "first\nsecond");
  EXPECT_EQ(sections.at("ci").at("region"), "x");
}

TEST(AwsIni, WhatIsNotIniNamesItsLineNeverItsText) {
  EXPECT_EQ(ini_error_of("[ci]\naws_access_key_id = AKID\nhunter2\n"),
            "FILE: line 3 is not `name = value`, a [section] or a comment (an INI file, as the AWS CLI reads it)");
  // Line numbers count the file's lines, however inih was handed a long one.
  const std::string error = ini_error_of("[ci]\nt = " + std::string(700, 'x') + "\n[broken\n");
  EXPECT_NE(error.find("FILE: line 3 is not"), std::string::npos) << error;
}

TEST(AwsIni, AMissingFileIsNothingAndOneThatCannotBeReadIsAnError) {
  const fs::path dir = fs::temp_directory_path() / ("kiln-aws-ini-test-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  Result<std::optional<IniSections>> missing = read_aws_file(dir / "credentials", "X=" + (dir / "credentials").string());
  ASSERT_TRUE(missing) << missing.error().message;
  EXPECT_FALSE(missing->has_value());
  Result<std::optional<IniSections>> directory = read_aws_file(dir, "AWS_CONFIG_FILE=" + dir.string());
  ASSERT_FALSE(directory);
  EXPECT_EQ(directory.error().message.rfind("AWS_CONFIG_FILE: cannot read " + dir.string(), 0), 0u)
      << directory.error().message;
  std::ofstream(dir / "big") << std::string(k_max_aws_file_size + 1, '#');
  Result<std::optional<IniSections>> big = read_aws_file(dir / "big", (dir / "big").string());
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("larger than"), std::string::npos) << big.error().message;
  std::ofstream(dir / "credentials") << "[default]\naws_access_key_id = AKID\n";
  Result<std::optional<IniSections>> read = read_aws_file(dir / "credentials", (dir / "credentials").string());
  ASSERT_TRUE(read && read->has_value());
  EXPECT_EQ((*read)->at("default").at("aws_access_key_id"), "AKID");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kiln::remote

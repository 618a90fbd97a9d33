// The S3 backend's settings: what it reads of its URL and of the AWS CLI's variables and files
// (remote/s3/aws_settings.hpp, s3_backend.hpp), and each mistake a user can make, named.
#include "remote/remote_backend.hpp"
#include "remote/remote_settings.hpp"
#include "remote/s3/aws_settings.hpp"
#include "remote/s3/s3_backend.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>

namespace kiln::remote {
namespace {

namespace fs = std::filesystem;

// Secrets that no message may show.
constexpr const char* k_secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
constexpr const char* k_token = "FwoGZXIvYXdzEXAMPLETOKEN";

class S3SettingsTest : public ::testing::Test {
protected:
  using Variables = std::map<std::string, std::string>;

  S3SettingsTest() : m_dir(fs::temp_directory_path() / ("kiln-s3-test-" + std::to_string(std::random_device{}()))) {
    fs::create_directories(m_dir / "home");
  }
  ~S3SettingsTest() override {
    std::error_code ignored;
    fs::remove_all(m_dir, ignored);
  }

  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path path = m_dir / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path;
  }

  store::Environment environment(Variables variables) const {
    return [variables = std::move(variables)](const char* name) -> std::optional<std::string> {
      const auto found = variables.find(name);
      if (found == variables.end()) return std::nullopt;
      return found->second;
    };
  }

  // The AWS settings of `variables`.
  AwsSettings aws(const Variables& variables) const {
    Result<AwsSettings> read = aws_settings(environment(variables));
    EXPECT_TRUE(read) << (read ? "" : read.error().message);
    return read ? *read : AwsSettings{};
  }

  // The error of the remote settings of `url` with `variables`, checked to show no secret.
  std::string error_of(const std::string& url, Variables variables) const {
    variables["KILN_REMOTE_CACHE"] = url;
    Result<std::optional<RemoteSettings>> settings = remote_settings(environment(variables));
    EXPECT_FALSE(settings) << url;
    const std::string message = settings ? "" : settings.error().message;
    EXPECT_EQ(message.find(k_secret), std::string::npos) << message;
    EXPECT_EQ(message.find(k_token), std::string::npos) << message;
    return message;
  }

  RemoteSettings settings_of(const std::string& url, Variables variables) const {
    variables["KILN_REMOTE_CACHE"] = url;
    Result<std::optional<RemoteSettings>> settings = remote_settings(environment(variables));
    EXPECT_TRUE(settings && settings->has_value()) << (settings ? "" : settings.error().message);
    return settings && settings->has_value() ? **settings : RemoteSettings{};
  }

  std::string base_of(const std::string& url, const Variables& variables) const {
    Result<RemoteUrl> parts = parse_remote_url(url);
    EXPECT_TRUE(parts);
    if (!parts) return "";
    Result<S3Address> address = s3_address(*parts, aws(variables));
    EXPECT_TRUE(address) << (address ? "" : address.error().message);
    return address ? address->base : "";
  }

  fs::path m_dir;
};

TEST_F(S3SettingsTest, NoCredentialsMeansUnsignedAndReadOnly) {
  const std::string home = (m_dir / "home").string();
  const RemoteSettings s = settings_of("s3://kiln-cache/ci", {{"HOME", home}});
  EXPECT_EQ(s.scheme, "s3");
  EXPECT_EQ(s.mode, Mode::read);
  EXPECT_NE(s.mode_reason.find("no AWS credentials"), std::string::npos) << s.mode_reason;
  EXPECT_NE(s.mode_reason.find(home + "/.aws/credentials"), std::string::npos) << s.mode_reason;
  EXPECT_NE(make_backend(s), nullptr);
  const AwsSettings none = aws({{"HOME", home}});
  EXPECT_FALSE(none.credentials);
  EXPECT_EQ(none.region, "us-east-1");
  EXPECT_EQ(none.endpoint, "");
  // An empty variable is none (CI systems hand forks' builds empty secrets).
  const Variables blank{{"AWS_ACCESS_KEY_ID", ""}, {"AWS_SECRET_ACCESS_KEY", ""}, {"AWS_SESSION_TOKEN", ""}};
  EXPECT_EQ(settings_of("s3://kiln-cache", blank).mode, Mode::read);
  // KILN_REMOTE_CACHE_MODE=read needs no reason from the backend.
  EXPECT_EQ(settings_of("s3://kiln-cache/ci", {{"KILN_REMOTE_CACHE_MODE", "read"}}).mode_reason, "");
}

TEST_F(S3SettingsTest, CredentialsFromTheVariablesComeFirst) {
  write("home/.aws/credentials", "[default]\naws_access_key_id = FROMFILE\naws_secret_access_key = x\n");
  const Variables variables{{"HOME", (m_dir / "home").string()},
                            {"AWS_ACCESS_KEY_ID", "AKIDVAR"},
                            {"AWS_SECRET_ACCESS_KEY", k_secret},
                            {"AWS_SESSION_TOKEN", k_token}};
  const AwsSettings s = aws(variables);
  ASSERT_TRUE(s.credentials);
  EXPECT_EQ(s.credentials->access_key_id, "AKIDVAR");
  EXPECT_EQ(s.credentials->secret_access_key, k_secret);
  EXPECT_EQ(s.credentials->session_token, k_token);
  EXPECT_EQ(s.credentials->source, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
  Variables with_url = variables;
  EXPECT_EQ(settings_of("s3://kiln-cache", with_url).mode, Mode::read_write);
}

TEST_F(S3SettingsTest, HalfAKeyPairInTheVariablesIsAnError) {
  EXPECT_EQ(error_of("s3://kiln-cache", {{"AWS_ACCESS_KEY_ID", "AKID"}}),
            "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not: give both (or neither, to use a profile)");
  EXPECT_EQ(error_of("s3://kiln-cache", {{"AWS_SECRET_ACCESS_KEY", k_secret}}),
            "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not: give both (or neither, to use a profile)");
  EXPECT_EQ(error_of("s3://kiln-cache", {{"AWS_SESSION_TOKEN", k_token}}),
            "AWS_SESSION_TOKEN is set without AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: give all three");
  EXPECT_EQ(error_of("s3://kiln-cache",
                     {{"AWS_ACCESS_KEY_ID", "AKID"}, {"AWS_SECRET_ACCESS_KEY", std::string(k_secret) + "\n"}}),
            "AWS_SECRET_ACCESS_KEY holds a space, a line break or a character that is not ASCII");
}

TEST_F(S3SettingsTest, CredentialsFromAProfile) {
  const fs::path file = write("ci/credentials", "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = d\n"
                                                "[ci]\naws_access_key_id = AKIDCI\naws_secret_access_key = " +
                                                    std::string(k_secret) + "\naws_session_token = " + k_token + "\n");
  const AwsSettings ci = aws({{"AWS_SHARED_CREDENTIALS_FILE", file.string()}, {"AWS_PROFILE", "ci"}});
  ASSERT_TRUE(ci.credentials);
  EXPECT_EQ(ci.credentials->access_key_id, "AKIDCI");
  EXPECT_EQ(ci.credentials->secret_access_key, k_secret);
  EXPECT_EQ(ci.credentials->session_token, k_token);
  EXPECT_EQ(ci.credentials->source, "profile ci of " + file.string());
  // "~/" is HOME, as the AWS CLI reads it.
  const AwsSettings tilde = aws({{"AWS_SHARED_CREDENTIALS_FILE", "~/ci/credentials"}, {"AWS_PROFILE", "ci"},
                                 {"HOME", m_dir.string()}});
  ASSERT_TRUE(tilde.credentials);
  EXPECT_EQ(tilde.credentials->access_key_id, "AKIDCI");
  const AwsSettings fallback = aws({{"AWS_SHARED_CREDENTIALS_FILE", file.string()}});
  ASSERT_TRUE(fallback.credentials);
  EXPECT_EQ(fallback.credentials->access_key_id, "AKIDDEFAULT");
  // $HOME/.aws/credentials when no variable names a file.
  write("home/.aws/credentials", "[default]\naws_access_key_id = AKIDHOME\naws_secret_access_key = h\n");
  const AwsSettings home = aws({{"HOME", (m_dir / "home").string()}});
  ASSERT_TRUE(home.credentials);
  EXPECT_EQ(home.credentials->access_key_id, "AKIDHOME");
  // Keys in the config file's [profile NAME] serve too, as the AWS CLI's do.
  const fs::path config = write("ci/config", "[profile ci]\naws_access_key_id = AKIDCONFIG\naws_secret_access_key = c\n");
  const AwsSettings from_config =
      aws({{"AWS_CONFIG_FILE", config.string()}, {"AWS_PROFILE", "ci"}, {"HOME", (m_dir / "home").string()}});
  ASSERT_TRUE(from_config.credentials);
  EXPECT_EQ(from_config.credentials->access_key_id, "AKIDCONFIG");
}

TEST_F(S3SettingsTest, ProfileMistakesAreErrors) {
  const fs::path file = write("credentials", "[ci]\naws_access_key_id = AKIDCI\n[half]\naws_secret_access_key = " +
                                                 std::string(k_secret) + "\n[token]\naws_session_token = " + k_token +
                                                 "\n[other]\nregion = x\n");
  const Variables in_file{{"AWS_SHARED_CREDENTIALS_FILE", file.string()}};
  auto with = [&](Variables more) {
    more.insert(in_file.begin(), in_file.end());
    return more;
  };
  EXPECT_EQ(error_of("s3://kiln-cache", with({{"AWS_PROFILE", "ci"}})),
            "profile ci of " + file.string() + " has aws_access_key_id but no aws_secret_access_key");
  EXPECT_EQ(error_of("s3://kiln-cache", with({{"AWS_PROFILE", "half"}})),
            "profile half of " + file.string() + " has aws_secret_access_key but no aws_access_key_id");
  EXPECT_EQ(error_of("s3://kiln-cache", with({{"AWS_PROFILE", "token"}})),
            "profile token of " + file.string() +
                " has aws_session_token but no aws_access_key_id and aws_secret_access_key");
  EXPECT_EQ(error_of("s3://kiln-cache", with({{"AWS_PROFILE", "nope"}})),
            "AWS_PROFILE=nope: no such profile in " + file.string());
  EXPECT_NE(error_of("s3://kiln-cache", with({{"AWS_PROFILE", "other"}}))
                .find("AWS_PROFILE=other: the profile has no aws_access_key_id and aws_secret_access_key in"),
            std::string::npos);
  EXPECT_EQ(error_of("s3://kiln-cache", {{"AWS_PROFILE", "a]b"}}),
            "AWS_PROFILE=a]b: not a profile name (at most 41 characters, no spaces or brackets)");
  // A default profile with no keys is no credentials: unsigned, read only.
  const fs::path plain = write("plain", "[default]\nregion = eu-north-1\n");
  EXPECT_EQ(settings_of("s3://kiln-cache", {{"AWS_SHARED_CREDENTIALS_FILE", plain.string()}}).mode, Mode::read);
}

TEST_F(S3SettingsTest, FilesThatCannotBeReadAreErrors) {
  EXPECT_EQ(error_of("s3://kiln-cache", {{"AWS_SHARED_CREDENTIALS_FILE", (m_dir / "missing").string()}}),
            "AWS_SHARED_CREDENTIALS_FILE=" + (m_dir / "missing").string() + ": no such file");
  EXPECT_EQ(error_of("s3://kiln-cache", {{"AWS_CONFIG_FILE", (m_dir / "gone").string()}}),
            "AWS_CONFIG_FILE=" + (m_dir / "gone").string() + ": no such file");
  fs::create_directories(m_dir / "home/.aws/credentials");
  EXPECT_EQ(error_of("s3://kiln-cache", {{"HOME", (m_dir / "home").string()}})
                .rfind("cannot read " + (m_dir / "home/.aws/credentials").string(), 0),
            0u);
  const fs::path broken = write("broken", "[default]\naws_access_key_id = AKID\n" + std::string(k_secret) + "\n");
  EXPECT_EQ(error_of("s3://kiln-cache", {{"AWS_SHARED_CREDENTIALS_FILE", broken.string()}}),
            "AWS_SHARED_CREDENTIALS_FILE=" + broken.string() +
                ": line 3 is not `name = value`, a [section] or a comment (an INI file, as the AWS CLI reads it)");
  // A value over lines (configparser's continuation) cannot go into a header.
  const fs::path multi = write("multi", "[default]\naws_access_key_id = AKID\naws_secret_access_key = a\n  b\n");
  EXPECT_EQ(error_of("s3://kiln-cache", {{"AWS_SHARED_CREDENTIALS_FILE", multi.string()}}),
            "profile default of " + multi.string() +
                ": aws_secret_access_key holds a space, a line break or a character that is not ASCII");
}

TEST_F(S3SettingsTest, RegionFromTheVariablesThenTheProfile) {
  const fs::path config = write("config", "[default]\nregion = eu-west-1\n[profile ci]\nregion = ap-south-2\n");
  EXPECT_EQ(aws({{"AWS_CONFIG_FILE", config.string()}}).region, "eu-west-1");
  const Variables keys{{"AWS_ACCESS_KEY_ID", "A"}, {"AWS_SECRET_ACCESS_KEY", "S"}};
  EXPECT_EQ(aws({{"AWS_CONFIG_FILE", config.string()}, {"AWS_PROFILE", "ci"}, *keys.begin(), *keys.rbegin()}).region,
            "ap-south-2");
  EXPECT_EQ(aws({{"AWS_CONFIG_FILE", config.string()}, {"AWS_DEFAULT_REGION", "us-west-2"}}).region, "us-west-2");
  EXPECT_EQ(aws({{"AWS_CONFIG_FILE", config.string()}, {"AWS_DEFAULT_REGION", "us-west-2"}, {"AWS_REGION", "sa-east-1"}})
                .region,
            "sa-east-1");
  write("home/.aws/config", "[profile ci]\nregion = ca-central-1\n");
  EXPECT_EQ(aws({{"HOME", (m_dir / "home").string()}, {"AWS_PROFILE", "ci"}, *keys.begin(), *keys.rbegin()}).region,
            "ca-central-1");
  // A profile named for its region alone, with no keys anywhere, is a mistake (profiles are for keys).
  EXPECT_NE(error_of("s3://kiln-cache", {{"AWS_CONFIG_FILE", config.string()}, {"AWS_PROFILE", "ci"}})
                .find("AWS_PROFILE=ci: the profile has no aws_access_key_id"),
            std::string::npos);
  EXPECT_EQ(error_of("s3://kiln-cache", {{"AWS_REGION", "EU West"}}),
            "AWS_REGION=EU West: not a region name (like eu-west-1)");
  const fs::path bad = write("bad", "[default]\nregion = eu_west\n");
  EXPECT_EQ(error_of("s3://kiln-cache", {{"AWS_CONFIG_FILE", bad.string()}}),
            "AWS_CONFIG_FILE=" + bad.string() +
                ": region = eu_west (profile default) is not a region name (like eu-west-1)");
}

TEST_F(S3SettingsTest, VirtualHostedOnAwsPathStyleOnAnEndpoint) {
  EXPECT_EQ(base_of("s3://kiln-cache/ci/main", {{"AWS_REGION", "eu-west-3"}}),
            "https://kiln-cache.s3.eu-west-3.amazonaws.com/ci/main/");
  EXPECT_EQ(base_of("s3://kiln-cache", {}), "https://kiln-cache.s3.us-east-1.amazonaws.com/");
  // A bucket with dots, which the *.s3 certificates do not cover: path-style.
  EXPECT_EQ(base_of("s3://cache.example/kiln/", {}), "https://s3.us-east-1.amazonaws.com/cache.example/kiln/");
  EXPECT_EQ(base_of("s3://kiln-cache/ci", {{"AWS_ENDPOINT_URL", "http://127.0.0.1:9000/"}}),
            "http://127.0.0.1:9000/kiln-cache/ci/");
  // The S3 endpoint before the general one.
  EXPECT_EQ(base_of("s3://kiln-cache/ci",
                    {{"AWS_ENDPOINT_URL", "http://general:1"}, {"AWS_ENDPOINT_URL_S3", "https://s3.local/api"}}),
            "https://s3.local/api/kiln-cache/ci/");
  EXPECT_EQ(base_of("s3://kiln-cache", {{"AWS_ENDPOINT_URL_S3", "http://[::1]:9000"}}), "http://[::1]:9000/kiln-cache/");
}

TEST_F(S3SettingsTest, WhatAnS3UrlCannotHold) {
  const std::string bucket = "' is not an S3 bucket name (";
  EXPECT_EQ(error_of("s3://ab/x", {}), "KILN_REMOTE_CACHE=s3://ab/x: 'ab" + bucket + "3 to 63 characters)");
  EXPECT_NE(error_of("s3://" + std::string(64, 'a'), {}).find("3 to 63 characters"), std::string::npos);
  EXPECT_NE(error_of("s3://my_bucket/x", {}).find("'my_bucket" + bucket + "lower-case letters, digits, '.' and '-' only)"),
            std::string::npos);
  EXPECT_NE(error_of("s3://-bucket/x", {}).find("a letter or digit at both ends"), std::string::npos);
  EXPECT_NE(error_of("s3://a..b/x", {}).find("no two dots together"), std::string::npos);
  EXPECT_NE(error_of("s3://192.168.1.1/x", {}).find("not an IP address"), std::string::npos);
  EXPECT_NE(error_of("s3://MyBucket/x", {}).find("lower-case"), std::string::npos);
  const std::string with_password = error_of("s3://AKID:" + std::string("hunter2") + "@kiln-cache/x", {});
  EXPECT_EQ(with_password, "KILN_REMOTE_CACHE=s3://AKID:***@kiln-cache/x: an s3:// URL takes no user or password "
                           "(credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile)");
  EXPECT_NE(error_of("s3://AKID@kiln-cache/x", {}).find("takes no user or password"), std::string::npos);
  EXPECT_EQ(error_of("s3://kiln-cache:9000/x", {}),
            "KILN_REMOTE_CACHE=s3://kiln-cache:9000/x: a bucket has no port (an S3 server's address goes in "
            "AWS_ENDPOINT_URL_S3)");
  EXPECT_NE(error_of("s3://kiln-cache/a%20b", {}).find("the prefix may hold only letters"), std::string::npos);
  EXPECT_NE(error_of("s3://kiln-cache/a//b", {}).find("an empty part"), std::string::npos);
  EXPECT_EQ(error_of("s3://kiln-cache", {{"KILN_REMOTE_CACHE_TOKEN", "t0ken"}}),
            "KILN_REMOTE_CACHE_TOKEN is set, but an s3:// cache signs its requests with AWS credentials "
            "(AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile), not a token");
}

TEST_F(S3SettingsTest, AnEndpointIsAnHttpUrl) {
  EXPECT_EQ(error_of("s3://kiln-cache", {{"AWS_ENDPOINT_URL_S3", "ftp://127.0.0.1:21"}}),
            "AWS_ENDPOINT_URL_S3=ftp://127.0.0.1:21: not an http:// or https:// URL");
  EXPECT_EQ(error_of("s3://kiln-cache", {{"AWS_ENDPOINT_URL", "127.0.0.1:9000"}}).rfind("AWS_ENDPOINT_URL=", 0), 0u);
  EXPECT_EQ(error_of("s3://kiln-cache", {{"AWS_ENDPOINT_URL", "http://u:hunter2@127.0.0.1:9000"}}),
            "AWS_ENDPOINT_URL=http://u:***@127.0.0.1:9000/: an endpoint takes no user or password (credentials: "
            "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile)");
  // A secret with '/' is no URL's password: the URL cannot be read, and is not shown.
  EXPECT_EQ(error_of("s3://kiln-cache", {{"AWS_ENDPOINT_URL", "http://u:" + std::string(k_secret) + "@127.0.0.1:9000"}})
                .rfind("AWS_ENDPOINT_URL=(unreadable): ", 0),
            0u);
  EXPECT_NE(error_of("s3://kiln-cache", {{"AWS_ENDPOINT_URL", "http://h/s3?x=1"}}).find("no query or fragment"),
            std::string::npos);
  EXPECT_NE(error_of("s3://kiln-cache", {{"AWS_ENDPOINT_URL", "http://h/a%20b"}}).find("its path may hold only"),
            std::string::npos);
  // A broken general endpoint is not read when the S3 one is set.
  EXPECT_EQ(aws({{"AWS_ENDPOINT_URL", "ftp://x"}, {"AWS_ENDPOINT_URL_S3", "http://h:1"}}).endpoint, "http://h:1");
}

}  // namespace
}  // namespace kiln::remote

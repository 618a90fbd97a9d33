#include "remote/s3/aws_settings.hpp"

#include "platform/text.hpp"
#include "remote/remote_url.hpp"
#include "remote/s3/aws_ini.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>

namespace kiln::remote {

namespace {

std::optional<std::string> aws_variable(const store::Environment& env, const char* name) {
  std::optional<std::string> value = env(name);
  if (!value || value->empty()) return std::nullopt;
  return value;
}

// Whether `value` goes into a header and a signature as it is: visible ASCII, no space, no line
// break (a multi-line value from a file, or a pasted one, would otherwise end the header).
bool aws_sendable(const std::string& value) {
  return std::all_of(value.begin(), value.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

// A file the AWS CLI reads: the one its variable names, else the one under $HOME/.aws; read once,
// when first needed.
struct AwsFile {
  std::filesystem::path path;   // empty: no variable and no HOME
  std::string named;            // for messages: "AWS_CONFIG_FILE=/ci/config", or the path
  bool given = false;           // named by its variable: then it must exist
  bool loaded = false;
  std::optional<IniSections> sections;   // nothing: no such file

  AwsFile(const store::Environment& env, const char* variable, const char* name) {
    const std::optional<std::string> home = aws_variable(env, "HOME");
    if (std::optional<std::string> value = aws_variable(env, variable)) {
      // "~/..." is under HOME, as the AWS CLI (Python's expanduser) reads it.
      path = home && value->starts_with("~/") ? std::filesystem::path(*home) / value->substr(2)
                                               : std::filesystem::path(*value);
      named = std::string(variable) + "=" + *value;
      given = true;
    } else if (home) {
      path = std::filesystem::path(*home) / ".aws" / name;
      named = platform::utf8_of(path);
    }
  }

  // Its section `name`, or null; an error when the file cannot be read, or is missing though named.
  Result<const IniSection*> section(const std::string& name) {
    if (!loaded && !path.empty()) {
      loaded = true;
      Result<std::optional<IniSections>> read = read_aws_file(path, named);
      if (!read) return read.error();
      if (!*read && given) return Error{named + ": no such file"};
      sections = std::move(*read);
    }
    if (!sections) return static_cast<const IniSection*>(nullptr);
    const auto found = sections->find(name);
    return found == sections->end() ? nullptr : &found->second;
  }

  std::string shown() const { return platform::utf8_of(path); }
};

// "/home/me/.aws/credentials or /home/me/.aws/config": the files a profile was looked for in.
std::string aws_files_shown(const AwsFile& credentials, const AwsFile& config) {
  if (credentials.path.empty() && config.path.empty())
    return "no file (no AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE or HOME)";
  if (credentials.path.empty() || config.path.empty())
    return credentials.path.empty() ? config.shown() : credentials.shown();
  return credentials.shown() + " or " + config.shown();
}

// The keys a section holds, if any; `where` names it: "profile ci of /home/me/.aws/credentials".
Result<std::optional<AwsCredentials>> aws_keys_of(const IniSection& section, const std::string& where) {
  const auto value = [&](const char* name) {
    const auto found = section.find(name);
    return found == section.end() ? std::string() : found->second;
  };
  AwsCredentials keys{value("aws_access_key_id"), value("aws_secret_access_key"), value("aws_session_token"), where};
  if (keys.access_key_id.empty() && keys.secret_access_key.empty()) {
    if (!keys.session_token.empty())
      return Error{where + " has aws_session_token but no aws_access_key_id and aws_secret_access_key"};
    return std::optional<AwsCredentials>();
  }
  if (keys.access_key_id.empty()) return Error{where + " has aws_secret_access_key but no aws_access_key_id"};
  if (keys.secret_access_key.empty()) return Error{where + " has aws_access_key_id but no aws_secret_access_key"};
  for (const auto& [name, text] : {std::pair{"aws_access_key_id", &keys.access_key_id},
                                   std::pair{"aws_secret_access_key", &keys.secret_access_key},
                                   std::pair{"aws_session_token", &keys.session_token}})
    if (!aws_sendable(*text))
      return Error{where + ": " + name + " holds a space, a line break or a character that is not ASCII"};
  return std::optional<AwsCredentials>(std::move(keys));
}

// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), all or none.
Result<std::optional<AwsCredentials>> aws_keys_from_variables(const store::Environment& env) {
  const std::optional<std::string> id = aws_variable(env, "AWS_ACCESS_KEY_ID");
  const std::optional<std::string> secret = aws_variable(env, "AWS_SECRET_ACCESS_KEY");
  const std::optional<std::string> token = aws_variable(env, "AWS_SESSION_TOKEN");
  if (!id && !secret) {
    if (token) return Error{"AWS_SESSION_TOKEN is set without AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: give all three"};
    return std::optional<AwsCredentials>();
  }
  const std::string both = ": give both (or neither, to use a profile)";
  if (!id) return Error{"AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not" + both};
  if (!secret) return Error{"AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not" + both};
  AwsCredentials keys{*id, *secret, token.value_or(""), "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"};
  for (const auto& [name, text] : {std::pair{"AWS_ACCESS_KEY_ID", &keys.access_key_id},
                                   std::pair{"AWS_SECRET_ACCESS_KEY", &keys.secret_access_key},
                                   std::pair{"AWS_SESSION_TOKEN", &keys.session_token}})
    if (!aws_sendable(*text))
      return Error{std::string(name) + " holds a space, a line break or a character that is not ASCII"};
  return std::optional<AwsCredentials>(std::move(keys));
}

// The profile's section of the config file: [default] or [profile NAME].
Result<const IniSection*> aws_config_section(AwsFile& config, const std::string& profile) {
  Result<const IniSection*> named = config.section("profile " + profile);
  if (!named || *named || profile != "default") return named;
  return config.section("default");
}

// Credentials from the profile: the credentials file's section first, then the config file's.
Status read_profile_keys(AwsSettings& out, AwsFile& credentials, AwsFile& config, const std::string& profile,
                         bool named) {
  bool seen = false;
  for (AwsFile* file : {&credentials, &config}) {
    Result<const IniSection*> section =
        file == &credentials ? credentials.section(profile) : aws_config_section(config, profile);
    if (!section) return section.error();
    if (!*section) continue;
    seen = true;
    Result<std::optional<AwsCredentials>> keys = aws_keys_of(**section, "profile " + profile + " of " + file->shown());
    if (!keys) return keys.error();
    if (*keys) {
      out.credentials = std::move(*keys);
      return {};
    }
  }
  const std::string files = aws_files_shown(credentials, config);
  if (named && !seen) return Error{"AWS_PROFILE=" + profile + ": no such profile in " + files};
  if (named)
    return Error{"AWS_PROFILE=" + profile + ": the profile has no aws_access_key_id and aws_secret_access_key in " +
                 files + " (Kiln reads keys only, not SSO, roles or credential_process)"};
  out.looked_in = "AWS_ACCESS_KEY_ID, profile " + profile + " of " + files;
  return {};
}

bool aws_region_name(const std::string& region) {
  // It goes into a host name and a signature's scope (which libcurl cuts at 64 characters).
  return !region.empty() && region.size() <= 64 && std::all_of(region.begin(), region.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

Status read_region(AwsSettings& out, const store::Environment& env, AwsFile& config, const std::string& profile) {
  for (const char* name : {"AWS_REGION", "AWS_DEFAULT_REGION"}) {
    if (std::optional<std::string> region = aws_variable(env, name)) {
      if (!aws_region_name(*region))
        return Error{std::string(name) + "=" + *region + ": not a region name (like eu-west-1)"};
      out.region = *region;
      return {};
    }
  }
  Result<const IniSection*> section = aws_config_section(config, profile);
  if (!section) return section.error();
  if (!*section) return {};
  const auto region = (*section)->find("region");
  if (region == (*section)->end() || region->second.empty()) return {};
  if (!aws_region_name(region->second))
    return Error{config.named + ": region = " + region->second + " (profile " + profile +
                 ") is not a region name (like eu-west-1)"};
  out.region = region->second;
  return {};
}

Status read_endpoint(AwsSettings& out, const store::Environment& env) {
  for (const char* name : {"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"}) {
    const std::optional<std::string> value = aws_variable(env, name);
    if (!value) continue;
    Result<RemoteUrl> url = parse_remote_url(*value, name);
    if (!url) return url.error();
    if (url->scheme != "http" && url->scheme != "https") return url_error(*url, "not an http:// or https:// URL");
    if (!url->user.empty() || !url->password.empty())
      return url_error(*url, "an endpoint takes no user or password (credentials: AWS_ACCESS_KEY_ID and "
                             "AWS_SECRET_ACCESS_KEY, or a profile)");
    if (url->host.empty()) return url_error(*url, "no host");
    std::string path = url->path;
    while (!path.empty() && path.back() == '/') path.pop_back();
    // libcurl signs the path as it is written: a character that S3 would see encoded breaks the signature.
    if (!std::all_of(path.begin(), path.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || std::strchr("-_.~/", c);
        }))
      return url_error(*url, "its path may hold only letters, digits, '-', '_', '.', '~' and '/'");
    out.endpoint = url->scheme + "://" + url->host + (url->port.empty() ? "" : ":" + url->port) + path;
    return {};
  }
  return {};
}

}  // namespace

Result<AwsSettings> aws_settings(const store::Environment& env) {
  AwsSettings out;
  const std::optional<std::string> named_profile = aws_variable(env, "AWS_PROFILE");
  const std::string profile = named_profile.value_or("default");
  // inih keeps 49 characters of a section's name: "profile " and 41.
  if (profile.size() > 41 || !aws_sendable(profile) || profile.find_first_of("[]") != std::string::npos)
    return Error{"AWS_PROFILE=" + profile + ": not a profile name (at most 41 characters, no spaces or brackets)"};
  AwsFile credentials(env, "AWS_SHARED_CREDENTIALS_FILE", "credentials");
  AwsFile config(env, "AWS_CONFIG_FILE", "config");

  Result<std::optional<AwsCredentials>> keys = aws_keys_from_variables(env);
  if (!keys) return keys.error();
  out.credentials = std::move(*keys);
  if (!out.credentials) KILN_TRY(read_profile_keys(out, credentials, config, profile, named_profile.has_value()));
  KILN_TRY(read_region(out, env, config, profile));
  KILN_TRY(read_endpoint(out, env));
  return out;
}

}  // namespace kiln::remote

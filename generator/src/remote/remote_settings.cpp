#include "remote/remote_settings.hpp"

#include <curl/curl.h>

#include <charconv>
#include <memory>

namespace kiln::remote {

namespace {

struct UrlDeleter {
  void operator()(CURLU* url) const { curl_url_cleanup(url); }
};
using Url = std::unique_ptr<CURLU, UrlDeleter>;

// One part of a parsed URL, "" when it has none.
std::string part(CURLU* url, CURLUPart which, unsigned flags = 0) {
  char* text = nullptr;
  if (curl_url_get(url, which, &text, flags) != CURLUE_OK || !text) return {};
  std::string out(text);
  curl_free(text);
  return out;
}

// The URL with its password hidden; the URL itself where it has none.
std::string shown(CURLU* url, const std::string& given) {
  if (part(url, CURLUPART_PASSWORD).empty()) return given;
  Url copy(curl_url_dup(url));
  if (!copy || curl_url_set(copy.get(), CURLUPART_PASSWORD, "***", 0) != CURLUE_OK) return "(a URL with a password)";
  return part(copy.get(), CURLUPART_URL);
}

Result<std::chrono::milliseconds> seconds(const store::Environment& env, const char* name,
                                          std::chrono::milliseconds fallback) {
  const std::optional<std::string> text = env(name);
  if (!text || text->empty()) return fallback;
  double value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || !(value > 0) || value > 86400)
    return Error{std::string(name) + "=" + *text + ": not a number of seconds (above 0, at most 86400)"};
  return std::chrono::milliseconds(static_cast<long long>(value * 1000 + 0.5));
}

Result<int> number(const std::string& text, int low, int high) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < low || value > high) return Error{""};
  return value;
}

// The signing and verify keys. A writer checks what it reads against its own public key unless
// told otherwise; told otherwise, it would write entries it refuses: a mistake, said at once.
Status read_keys(const store::Environment& env, RemoteSettings& settings) {
  if (const std::optional<std::string> file = env("KILN_REMOTE_CACHE_SIGNING_KEY"); file && !file->empty()) {
    Result<SigningKey> key = read_signing_key("KILN_REMOTE_CACHE_SIGNING_KEY", *file);
    if (!key) return key.error();
    settings.signing_key = *key;
  }
  if (const std::optional<std::string> value = env("KILN_REMOTE_CACHE_VERIFY_KEY"); value && !value->empty()) {
    Result<VerifyKey> key = read_verify_key("KILN_REMOTE_CACHE_VERIFY_KEY", *value);
    if (!key) return key.error();
    settings.verify_key = *key;
  }
  if (!settings.signing_key) return Ok{};
  const VerifyKey own = settings.signing_key->public_half();
  if (settings.verify_key && !(*settings.verify_key == own))
    return Error{"KILN_REMOTE_CACHE_VERIFY_KEY (key " + key_id(*settings.verify_key) +
                 ") is not the public half of KILN_REMOTE_CACHE_SIGNING_KEY (key " + key_id(own) +
                 "): this build would write entries it refuses"};
  settings.verify_key = own;
  return Ok{};
}

}  // namespace

const char* mode_name(Mode mode) { return mode == Mode::read ? "read" : "read-write"; }

Result<std::optional<RemoteSettings>> remote_settings(const store::Environment& env) {
  const std::optional<std::string> given = env("KILN_REMOTE_CACHE");
  if (!given || given->empty()) return std::optional<RemoteSettings>();
  RemoteSettings settings;
  Url url(curl_url());
  if (!url) return Error{"KILN_REMOTE_CACHE: out of memory"};
  const CURLUcode parsed = curl_url_set(url.get(), CURLUPART_URL, given->c_str(), CURLU_NON_SUPPORT_SCHEME);
  settings.url = *given;
  settings.shown_url = parsed == CURLUE_OK ? shown(url.get(), *given) : std::string("(unreadable)");
  const std::string scheme = parsed == CURLUE_OK ? part(url.get(), CURLUPART_SCHEME) : "";
  if (scheme == "http" || scheme == "https") {
    settings.protocol = Protocol::http;
  } else if (scheme == "redis") {
    settings.protocol = Protocol::redis;
  } else {
    const std::string why = parsed != CURLUE_OK ? curl_url_strerror(parsed) : "not an http://, https:// or redis:// URL";
    return Error{"KILN_REMOTE_CACHE=" + settings.shown_url + ": " + why};
  }
  if (!part(url.get(), CURLUPART_QUERY).empty() || !part(url.get(), CURLUPART_FRAGMENT).empty())
    return Error{"KILN_REMOTE_CACHE=" + settings.shown_url + ": a cache URL takes no query or fragment"};
  settings.host = part(url.get(), CURLUPART_HOST);
  settings.user = part(url.get(), CURLUPART_USER, CURLU_URLDECODE);
  settings.password = part(url.get(), CURLUPART_PASSWORD, CURLU_URLDECODE);
  if (settings.protocol == Protocol::redis) {
    if (const std::string port = part(url.get(), CURLUPART_PORT); !port.empty()) {
      Result<int> value = number(port, 1, 65535);
      if (!value) return Error{"KILN_REMOTE_CACHE=" + settings.shown_url + ": port " + port + " is not 1 to 65535"};
      settings.port = *value;
    }
    std::string path = part(url.get(), CURLUPART_PATH);
    while (!path.empty() && path.front() == '/') path.erase(0, 1);
    if (!path.empty()) {
      Result<int> value = number(path, 0, 1 << 20);
      if (!value)
        return Error{"KILN_REMOTE_CACHE=" + settings.shown_url + ": '/" + path +
                     "' is not a database number (redis://host:port/0)"};
      settings.database = *value;
    }
  }

  if (const std::optional<std::string> mode = env("KILN_REMOTE_CACHE_MODE"); mode && !mode->empty()) {
    if (*mode == "read")
      settings.mode = Mode::read;
    else if (*mode == "read-write")
      settings.mode = Mode::read_write;
    else
      return Error{"KILN_REMOTE_CACHE_MODE=" + *mode + ": not read (never write) or read-write"};
  }
  if (const std::optional<std::string> token = env("KILN_REMOTE_CACHE_TOKEN")) settings.token = *token;
  if (settings.protocol == Protocol::redis && settings.password.empty()) settings.password = settings.token;

  Result<std::chrono::milliseconds> connect =
      seconds(env, "KILN_REMOTE_CACHE_CONNECT_TIMEOUT", settings.connect_timeout);
  if (!connect) return connect.error();
  settings.connect_timeout = *connect;
  Result<std::chrono::milliseconds> whole = seconds(env, "KILN_REMOTE_CACHE_TIMEOUT", settings.timeout);
  if (!whole) return whole.error();
  settings.timeout = *whole;
  Result<std::chrono::milliseconds> budget = seconds(env, "KILN_REMOTE_CACHE_BUDGET", settings.budget);
  if (!budget) return budget.error();
  settings.budget = *budget;
  if (Status keys = read_keys(env, settings); !keys) return keys.error();
  return std::optional<RemoteSettings>(std::move(settings));
}

}  // namespace kiln::remote

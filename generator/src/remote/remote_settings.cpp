#include "remote/remote_settings.hpp"

#include "remote/backend_table.hpp"
#include "remote/remote_backend.hpp"
#include "remote/remote_url.hpp"

#include <charconv>

namespace kiln::remote {

namespace {

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
  Result<RemoteUrl> url = parse_remote_url(*given);
  if (!url) return url.error();
  const BackendRow* row = find_backend(url->scheme);
  if (!row) return url_error(*url, "not a remote cache Kiln speaks (" + known_schemes() + ")");
  RemoteSettings settings;
  settings.scheme = row->scheme;
  settings.url = url->given;
  settings.shown_url = url->shown;

  if (const std::optional<std::string> mode = env("KILN_REMOTE_CACHE_MODE"); mode && !mode->empty()) {
    if (*mode == "read")
      settings.mode = Mode::read;
    else if (*mode == "read-write")
      settings.mode = Mode::read_write;
    else
      return Error{"KILN_REMOTE_CACHE_MODE=" + *mode + ": not read (never write) or read-write"};
  }
  if (const std::optional<std::string> token = env("KILN_REMOTE_CACHE_TOKEN")) {
    // Sent as a header by every backend that takes one: printable ASCII, as a header value is. A line
    // break would end the header and start one the token chose; the token itself is never shown.
    for (const char c : *token)
      if (c < 0x20 || c > 0x7e)
        return Error{"KILN_REMOTE_CACHE_TOKEN: has a character that a header cannot carry (a line break, a control "
                     "character or a non-ASCII byte); the token is sent as 'Authorization: Bearer <token>'"};
    settings.token = *token;
  }

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
  // The backend last: it reads what is common (the token, the mode) and may narrow the mode.
  Result<BackendOpener> opener = row->prepare(*url, env, settings);
  if (!opener) return opener.error();
  settings.open_backend = std::move(*opener);
  return std::optional<RemoteSettings>(std::move(settings));
}

std::unique_ptr<RemoteBackend> make_backend(const RemoteSettings& settings) { return settings.open_backend(settings); }

}  // namespace kiln::remote

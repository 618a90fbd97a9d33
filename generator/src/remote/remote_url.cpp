#include "remote/remote_url.hpp"

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

}  // namespace

Error url_error(const RemoteUrl& url, const std::string& why) {
  return Error{url.variable + "=" + url.shown + ": " + why};
}

Result<RemoteUrl> parse_remote_url(const std::string& given, const char* variable) {
  RemoteUrl out;
  out.variable = variable;
  out.given = given;
  Url url(curl_url());
  if (!url) return Error{out.variable + ": out of memory"};
  // Any scheme: which ones Kiln takes is the backend table's to say.
  const CURLUcode parsed = curl_url_set(url.get(), CURLUPART_URL, given.c_str(), CURLU_NON_SUPPORT_SCHEME);
  out.shown = parsed == CURLUE_OK ? shown(url.get(), given) : std::string("(unreadable)");
  if (parsed != CURLUE_OK) return url_error(out, curl_url_strerror(parsed));
  out.scheme = part(url.get(), CURLUPART_SCHEME);
  for (char& c : out.scheme) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (!part(url.get(), CURLUPART_QUERY).empty() || !part(url.get(), CURLUPART_FRAGMENT).empty())
    return url_error(out, "a cache URL takes no query or fragment");
  out.user = part(url.get(), CURLUPART_USER, CURLU_URLDECODE);
  out.password = part(url.get(), CURLUPART_PASSWORD, CURLU_URLDECODE);
  out.host = part(url.get(), CURLUPART_HOST);
  out.port = part(url.get(), CURLUPART_PORT);
  out.path = part(url.get(), CURLUPART_PATH);
  if (out.path == "/") out.path.clear();
  return out;
}

Result<int> port_of(const RemoteUrl& url, int fallback) {
  if (url.port.empty()) return fallback;
  int value = 0;
  const auto [end, ec] = std::from_chars(url.port.data(), url.port.data() + url.port.size(), value);
  if (ec != std::errc() || end != url.port.data() + url.port.size() || value < 1 || value > 65535)
    return url_error(url, "port " + url.port + " is not 1 to 65535");
  return value;
}

}  // namespace kiln::remote

// The S3 backend: the HTTP backend's bounded requests (curl_session.hpp), signed by libcurl when
// there are credentials. libcurl cannot hash a body it reads piece by piece, so the payload's SHA-256
// goes in x-amz-content-sha256 (which S3 requires of every signed request), and libcurl signs that.
#include "remote/s3/s3_backend.hpp"

#include "remote/http/curl_session.hpp"
#include "remote/remote_backend.hpp"

#include <curl/curl.h>
#include <sodium.h>

#include <algorithm>
#include <array>
#include <chrono>

// 7.87 is where libcurl's signature takes the payload's hash from x-amz-content-sha256; before, it
// signed every PUT as if its body were empty, and S3 refused it.
#if LIBCURL_VERSION_NUM < 0x075700
#error "the S3 backend needs libcurl 7.87 or later"
#endif

namespace kiln::remote {

namespace {

// SHA-256 of nothing: the payload of a GET and a HEAD.
constexpr const char* k_s3_empty_payload_sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

std::string s3_payload_sha256(std::span<const std::byte> value) {
  std::array<unsigned char, crypto_hash_sha256_BYTES> hash{};
  crypto_hash_sha256(hash.data(), reinterpret_cast<const unsigned char*>(value.data()), value.size());
  std::array<char, 2 * crypto_hash_sha256_BYTES + 1> hex{};
  sodium_bin2hex(hex.data(), hex.size(), hash.data(), hash.size());
  return hex.data();
}

// The <Code> of an S3 error document ("NoSuchBucket", "SignatureDoesNotMatch"); "" when none.
std::string s3_error_code(std::span<const std::byte> body) {
  const std::string_view text(reinterpret_cast<const char*>(body.data()), std::min<std::size_t>(body.size(), 4096));
  const std::size_t open = text.find("<Code>");
  if (open == std::string_view::npos) return "";
  const std::size_t start = open + 6;
  const std::size_t close = text.find("</Code>", start);
  if (close == std::string_view::npos || close - start > 64) return "";
  const std::string_view code = text.substr(start, close - start);
  const bool word = std::all_of(code.begin(), code.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  });
  return word ? std::string(code) : "";
}

class S3Backend final : public RemoteBackend {
public:
  S3Backend(S3Address address, AwsSettings aws, const RemoteSettings& settings)
      : m_address(std::move(address)), m_aws(std::move(aws)), m_session(settings.connect_timeout, settings.timeout),
        m_sigv4("aws:amz:" + m_aws.region + ":s3") {}

  ~S3Backend() override { curl_slist_free_all(m_headers); }

  Reply get(std::string_view key, std::chrono::milliseconds limit) override {
    Reply reply;
    if (!start(key, k_s3_empty_payload_sha256, limit, reply)) return reply;
    const long status = m_session.get(reply);
    const std::string code = status == 200 ? "" : s3_error_code(reply.bytes);
    if (status == 200) {
      reply.kind = Reply::Kind::found;
    } else if (status == 404 && code != "NoSuchBucket") {   // NoSuchKey
      reply.kind = Reply::Kind::absent;
      reply.bytes.clear();
    } else if (status > 0) {
      fail_with_status(status, code, key, reply);
    }
    return reply;
  }

  Reply put(std::string_view key, std::span<const std::byte> value, bool only_if_missing,
            std::chrono::milliseconds limit) override {
    Reply reply;
    // A HEAD's 403 is stored over too: S3 answers it for a missing object to whoever may not list the bucket.
    const auto start_head = [&](std::chrono::milliseconds left) {
      return start(key, k_s3_empty_payload_sha256, left, reply);
    };
    if (!m_session.needs_storing(only_if_missing, limit, reply, start_head)) return reply;
    if (!start(key, s3_payload_sha256(value), limit, reply)) return reply;
    std::vector<std::byte> answer;
    const long status = m_session.put(value, reply, &answer);
    if (status >= 200 && status < 300)
      reply.kind = Reply::Kind::found;
    else if (status > 0)
      fail_with_status(status, s3_error_code(answer), key, reply);
    return reply;
  }

private:
  std::string object_url(std::string_view key) const {
    return m_address.base + std::string(key.substr(0, 2)) + "/" + std::string(key);
  }

  // A request of `key` whose body hashes to `payload_sha256`, signed when there are credentials.
  bool start(std::string_view key, const std::string& payload_sha256, std::chrono::milliseconds limit, Reply& reply) {
    const std::string url = object_url(key);   // no secret in it: credentials never go in an S3 URL
    CURL* curl = m_session.start(url, url, limit, reply);
    if (!curl) return false;
    if (!m_aws.credentials) return true;
    curl_slist_free_all(m_headers);
    m_headers = curl_slist_append(nullptr, ("x-amz-content-sha256: " + payload_sha256).c_str());
    if (!m_aws.credentials->session_token.empty())
      m_headers = curl_slist_append(m_headers, ("x-amz-security-token: " + m_aws.credentials->session_token).c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, m_headers);
    curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, m_sigv4.c_str());
    curl_easy_setopt(curl, CURLOPT_USERNAME, m_aws.credentials->access_key_id.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, m_aws.credentials->secret_access_key.c_str());
    return true;
  }

  void fail_with_status(long status, const std::string& code, std::string_view key, Reply& reply) const {
    reply.kind = Reply::Kind::failed;
    reply.message = "S3 " + std::to_string(status) + (code.empty() ? "" : " " + code) + " for " + object_url(key);
    if (!m_aws.credentials && (status == 400 || status == 401 || status == 403)) {
      // A server that takes only signed requests may refuse an unsigned one as malformed (rclone: 400).
      reply.message += " (unsigned: no AWS credentials in " + m_aws.looked_in +
                       "; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)";
    } else if (status == 401 || status == 403) {
      if (m_aws.credentials->source.starts_with("AWS_"))
        reply.message += " (check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN)";
      else
        reply.message += " (check the keys of " + m_aws.credentials->source + ", the profile AWS_PROFILE names)";
    } else if (status == 301 || status == 307 || code == "AuthorizationHeaderMalformed") {
      reply.message += " (is the bucket in another region than " + m_aws.region + "? AWS_REGION says which)";
    } else if (code == "NoSuchBucket") {
      reply.message += " (no bucket " + m_address.bucket + " there: check KILN_REMOTE_CACHE" +
                       (m_aws.endpoint.empty() ? ")" : " and AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL)");
    }
    reply.bytes.clear();
  }

  S3Address m_address;
  AwsSettings m_aws;
  CurlSession m_session;
  std::string m_sigv4;   // "aws:amz:<region>:s3"
  curl_slist* m_headers = nullptr;
};

}  // namespace

Result<BackendOpener> prepare_s3(const RemoteUrl& url, const store::Environment& env, RemoteSettings& settings) {
  if (!settings.token.empty())
    return Error{"KILN_REMOTE_CACHE_TOKEN is set, but an s3:// cache signs its requests with AWS credentials "
                 "(AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile), not a token"};
  if (sodium_init() < 0) return Error{"KILN_REMOTE_CACHE=" + url.shown + ": libsodium cannot start (for SHA-256)"};
  Result<AwsSettings> aws = aws_settings(env);
  if (!aws) return aws.error();
  Result<S3Address> address = s3_address(url, *aws);
  if (!address) return address.error();
  if (!aws->credentials && settings.mode == Mode::read_write) {
    settings.mode = Mode::read;
    settings.mode_reason = "no AWS credentials (" + aws->looked_in + "): unsigned requests, nothing written";
  }
  return BackendOpener([address = std::move(*address), aws = std::move(*aws)](const RemoteSettings& opened)
                           -> std::unique_ptr<RemoteBackend> { return std::make_unique<S3Backend>(address, aws, opened); });
}

}  // namespace kiln::remote

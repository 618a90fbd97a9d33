// Where an s3:// URL's objects are (s3_backend.hpp), and what of the URL S3 cannot take.
#include "remote/s3/s3_backend.hpp"

#include <algorithm>
#include <cstring>

namespace kiln::remote {

namespace {

bool s3_lower_or_digit(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// What S3's naming rules refuse in a bucket's name, "" when nothing.
std::string s3_bucket_problem(const std::string& bucket) {
  if (bucket.size() < 3 || bucket.size() > 63) return "3 to 63 characters";
  if (!std::all_of(bucket.begin(), bucket.end(), [](char c) { return s3_lower_or_digit(c) || c == '.' || c == '-'; }))
    return "lower-case letters, digits, '.' and '-' only";
  if (!s3_lower_or_digit(bucket.front()) || !s3_lower_or_digit(bucket.back()))
    return "a letter or digit at both ends";
  if (bucket.find("..") != std::string::npos) return "no two dots together";
  if (std::all_of(bucket.begin(), bucket.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; }))
    return "not an IP address";
  return "";
}

// libcurl 7.88 signs the path as it is written, and S3 checks the signature against the path it
// decodes: a character that must travel encoded (a space, '%', '+') would not match. Keys are hex.
bool s3_plain_path(const std::string& path) {
  return std::all_of(path.begin(), path.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || std::strchr("-_.~/", c);
  });
}

}  // namespace

Result<S3Address> s3_address(const RemoteUrl& url, const AwsSettings& aws) {
  if (!url.user.empty() || !url.password.empty())
    return url_error(url, "an s3:// URL takes no user or password (credentials: AWS_ACCESS_KEY_ID and "
                          "AWS_SECRET_ACCESS_KEY, or a profile)");
  if (!url.port.empty())
    return url_error(url, "a bucket has no port (an S3 server's address goes in AWS_ENDPOINT_URL_S3)");
  S3Address out;
  out.bucket = url.host;
  if (const std::string problem = s3_bucket_problem(out.bucket); !problem.empty())
    return url_error(url, "'" + out.bucket + "' is not an S3 bucket name (" + problem + ")");
  out.prefix = url.path;
  while (!out.prefix.empty() && out.prefix.front() == '/') out.prefix.erase(0, 1);
  while (!out.prefix.empty() && out.prefix.back() == '/') out.prefix.pop_back();
  if (!s3_plain_path(out.prefix))
    return url_error(url, "the prefix may hold only letters, digits, '-', '_', '.', '~' and '/'");
  if (out.prefix.find("//") != std::string::npos) return url_error(url, "the prefix has an empty part ('//')");

  const std::string under = out.prefix.empty() ? "" : out.prefix + "/";
  if (!aws.endpoint.empty())
    out.base = aws.endpoint + "/" + out.bucket + "/" + under;
  else if (out.bucket.find('.') != std::string::npos)
    out.base = "https://s3." + aws.region + ".amazonaws.com/" + out.bucket + "/" + under;
  else
    out.base = "https://" + out.bucket + ".s3." + aws.region + ".amazonaws.com/" + under;
  return out;
}

}  // namespace kiln::remote

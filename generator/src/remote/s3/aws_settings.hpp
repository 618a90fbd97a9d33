// What the S3 backend takes from the environment, found as the AWS CLI finds it (every variable read
// through the store::Environment it is given, HOME too, never getenv):
//
//   credentials  AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN); else the profile
//                AWS_PROFILE names (default: `default`) in the credentials file, AWS_SHARED_CREDENTIALS_FILE
//                or $HOME/.aws/credentials, or else in the config file ([profile NAME], or [default]):
//                aws_access_key_id, aws_secret_access_key, aws_session_token. None at all: requests go
//                unsigned, and the cache is read only (anonymous reading, for forks' builds).
//   region       AWS_REGION, else AWS_DEFAULT_REGION, else the profile's `region` in the config file,
//                AWS_CONFIG_FILE or $HOME/.aws/config; else us-east-1
//   endpoint     AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL: an http:// or https:// URL (a local S3
//                server, another provider); none: AWS's own for the region
//
// Only keys are read: profiles that fetch credentials (SSO, roles, credential_process) are not. A
// mistake (half a key pair, a named profile that no file has, a file that cannot be read, a region or
// endpoint that is not one) is an error naming the variable or file and the value, never a secret.
#pragma once

#include "store/cache_settings.hpp"
#include "util/result.hpp"

#include <optional>
#include <string>

namespace kiln::remote {

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;   // "" when none
  // Where they came from, for messages: "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", or
  // "profile ci of /home/me/.aws/credentials".
  std::string source;
};

struct AwsSettings {
  std::optional<AwsCredentials> credentials;   // none: unsigned requests
  // Where credentials were looked for, when none were found: "AWS_ACCESS_KEY_ID, profile default
  // of /home/me/.aws/credentials or /home/me/.aws/config".
  std::string looked_in;
  std::string region = "us-east-1";
  std::string endpoint;   // "http://127.0.0.1:9000", no '/' at the end; "" for AWS's own
};

Result<AwsSettings> aws_settings(const store::Environment& env);

}  // namespace kiln::remote

// S3 (libcurl, requests signed with AWS Signature Version 4 by libcurl's CURLOPT_AWS_SIGV4):
// KILN_REMOTE_CACHE=s3://bucket[/prefix]. Entries are the objects <prefix>/<k0k1>/<key>, the HTTP
// backend's layout: GET, HEAD (before a PUT that must not replace an entry) and PUT. The credentials,
// region and endpoint come from the AWS CLI's variables and files (aws_settings.hpp); with none, requests
// go unsigned and the cache is read only, which a bucket that everyone may read serves (forks' builds).
//
// Addressing: with an endpoint, path-style (<endpoint>/<bucket>/<prefix>/...); without, AWS's
// virtual-hosted https://<bucket>.s3.<region>.amazonaws.com/<prefix>/..., or path-style on
// https://s3.<region>.amazonaws.com for a bucket with dots (which TLS certificates of *.s3 do not cover).
#pragma once

#include "remote/remote_settings.hpp"
#include "remote/remote_url.hpp"
#include "remote/s3/aws_settings.hpp"
#include "store/cache_settings.hpp"

#include <string>

namespace kiln::remote {

struct S3Address {
  std::string bucket;
  std::string prefix;   // without '/' at either end; "" for the bucket's top
  std::string base;     // what an object's <k0k1>/<key> follows: "http://127.0.0.1:9000/kiln/ci/"
};

// Where the objects of an s3:// URL are, given the settings' region and endpoint; an error names the
// URL and what S3 cannot take (a bucket name S3 cannot have, a user or password, a port).
Result<S3Address> s3_address(const RemoteUrl& url, const AwsSettings& aws);

Result<BackendOpener> prepare_s3(const RemoteUrl& url, const store::Environment& env, RemoteSettings& settings);

}  // namespace kiln::remote

// Every remote cache Kiln speaks, one row each: the URL schemes it takes and the function that reads
// its URL and its own variables. Adding a backend is a folder beside http/ and redis/ and a row in
// backend_table.cpp; everything else a remote cache does is the same for all of them and lives outside
// the backends: the mode, the time limits and budget, entry signatures (remote_settings.hpp,
// layered_store.hpp) and the bound on what a reply may hold (k_max_remote_entry_size, which each
// backend applies to its own protocol).
#pragma once

#include "remote/remote_backend.hpp"
#include "remote/remote_settings.hpp"
#include "remote/remote_url.hpp"
#include "store/cache_settings.hpp"
#include "util/result.hpp"

#include <span>
#include <string_view>

namespace kiln::remote {

struct BackendRow {
  std::string_view scheme;   // "s3": KILN_REMOTE_CACHE=s3://...
  std::string_view form;     // what a URL of it looks like, for messages and `kiln cache`
  // Reads the URL's parts and the variables only this backend reads, and checks them: an error names
  // the variable and its value. May narrow `settings` (an S3 cache with no credentials is read only,
  // and says why in settings.mode_reason). Nothing is sent: the opener it returns connects on the
  // first request.
  Result<BackendOpener> (*prepare)(const RemoteUrl& url, const store::Environment& env, RemoteSettings& settings);
};

std::span<const BackendRow> backend_table();

// The row for `scheme`; nullptr when no backend takes it.
const BackendRow* find_backend(std::string_view scheme);

// "http://, https://, redis://, s3://, grpc:// or grpcs://": the schemes of the table, for messages.
std::string known_schemes();

}  // namespace kiln::remote

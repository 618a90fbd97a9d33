// HTTP and HTTPS (libcurl): KILN_REMOTE_CACHE=http://[user:password@]host[:port]/prefix (or https://).
// Entries are GET, HEAD and PUT as <prefix>/<k0k1>/<key>, the layout nginx's WebDAV and ccache's HTTP
// backend take; basic auth from the URL, KILN_REMOTE_CACHE_TOKEN sent as "Authorization: Bearer <token>".
#pragma once

#include "remote/remote_settings.hpp"
#include "remote/remote_url.hpp"
#include "store/cache_settings.hpp"

namespace kiln::remote {

Result<BackendOpener> prepare_http(const RemoteUrl& url, const store::Environment& env, RemoteSettings& settings);

}  // namespace kiln::remote

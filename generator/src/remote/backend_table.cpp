#include "remote/backend_table.hpp"

#include "remote/http/http_backend.hpp"
#include "remote/reapi/reapi_backend.hpp"
#include "remote/redis/redis_backend.hpp"
#include "remote/s3/s3_backend.hpp"

#include <array>

namespace kiln::remote {

namespace {

constexpr std::array k_rows{
    BackendRow{"http", "http://[user:password@]host[:port]/prefix", prepare_http},
    BackendRow{"https", "https://[user:password@]host[:port]/prefix", prepare_http},
    BackendRow{"redis", "redis://[[user]:password@]host[:port][/db]", prepare_redis},
    BackendRow{"s3", "s3://bucket[/prefix]", prepare_s3},
    BackendRow{"grpc", "grpc://host[:port][/instance]", prepare_reapi},
    BackendRow{"grpcs", "grpcs://host[:port][/instance]", prepare_reapi},
};

}  // namespace

std::span<const BackendRow> backend_table() { return k_rows; }

const BackendRow* find_backend(std::string_view scheme) {
  for (const BackendRow& row : k_rows)
    if (row.scheme == scheme) return &row;
  return nullptr;
}

std::string known_schemes() {
  std::string out;
  for (std::size_t i = 0; i < k_rows.size(); ++i) {
    if (i > 0) out += i + 1 == k_rows.size() ? " or " : ", ";
    out += std::string(k_rows[i].scheme) + "://";
  }
  return out;
}

}  // namespace kiln::remote

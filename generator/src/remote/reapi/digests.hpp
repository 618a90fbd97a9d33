// How Kiln's entries are named in a REAPI cache (reapi_backend.hpp says why it is so), and the
// choice between a batch call and a byte stream for a blob.
//
//   the entry                the blob of its bytes (store/entry_format.hpp, signed or not:
//                            entry_signing.hpp), under their SHA-256 digest
//   the key K's action       the SHA-256 digest of the bytes "kiln-action 1 " + K (K in lower-case
//                            hex, as the store writes it: no newline, nothing else)
//   the action's result      exit code 0 and one output file, "kiln-entry", whose digest is the blob's
//
// Written on servers: change the version in k_action_prefix (and so every action digest), never
// the meaning.
#pragma once

#include "remote/reapi/cache_service.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kiln::remote::reapi {

inline constexpr std::string_view k_action_prefix = "kiln-action 1 ";
inline constexpr std::string_view k_entry_path = "kiln-entry";

// The batch limit when the server sets none of its own (max_batch_total_size_bytes 0): 4 MiB, gRPC's
// default for the largest message a server takes. It is also the most a batch call ever carries
// here, whatever the server allows: a batch answer is a list, and a list of empty items costs far more
// memory than its bytes (grpc_cache_service.cpp bounds the answers accordingly).
inline constexpr std::int64_t k_default_batch_limit = std::int64_t{4} << 20;
// What a batch call holds beyond the blob and the instance name: digests, field tags and lengths.
inline constexpr std::int64_t k_batch_overhead = 1024;

// The digest of `bytes`: SHA-256 (libsodium), in lower-case hex.
Digest digest_of(std::span<const std::byte> bytes);

// The action digest of the store's key `key` (see above).
Digest action_digest(std::string_view key);

// Whether a digest a server sent can name a blob Kiln reads: 64 lower-case hex digits, and a size of
// 0 to `max_size`.
bool valid_digest(const Digest& digest, std::int64_t max_size);

// Whether a blob of `size` bytes goes in one batch call (else a byte stream), given the server's
// max_batch_total_size_bytes (0: none) and the instance name the call carries.
bool fits_in_batch(std::int64_t size, std::int64_t server_limit, std::size_t instance_size);

// ByteStream resource names: "{instance}/blobs/{hash}/{size}" to read and
// "{instance}/uploads/{upload_id}/blobs/{hash}/{size}" to write, without "{instance}/" when it is empty.
std::string read_resource(std::string_view instance, const Digest& blob);
std::string write_resource(std::string_view instance, std::string_view upload_id, const Digest& blob);

// A random (version 4) UUID, "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx": a byte stream upload's name.
std::string new_upload_id();

}  // namespace kiln::remote::reapi

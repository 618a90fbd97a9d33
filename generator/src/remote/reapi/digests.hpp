// How Kiln's entries are named in a REAPI cache (reapi_backend.hpp says why it is so), and the
// choice between a batch call and a byte stream for a blob.
//
//   the entry                the blob of its bytes (store/entry_format.hpp, signed or not:
//                            entry_signing.hpp), under their SHA-256 digest
//   the key K's Command      a Command message with arguments ["kiln-entry", "1", K] (K in lower-case
//                            hex, as the store writes it) and output_paths ["kiln-entry"] (the
//                            field of REAPI v2.1 on, which replaced output_files); nothing else
//                            set. Kiln never runs it: it names the entry, for a server's checks and
//                            for whoever reads the server.
//   the key K's Action       an Action message with command_digest the Command's digest and
//                            input_root_digest the empty Directory's (that of zero bytes:
//                            e3b0c442...b855/0); nothing else set
//   K's action digest        the SHA-256 digest of the Action's bytes
//   the action's result      in the action cache, under the action digest: exit code 0 and one
//                            output file, "kiln-entry", whose digest is the entry's blob's
//
// Both messages are written in protobuf's deterministic encoding (fields in number order, nothing
// unknown): for a 32-digit key the Command is 61 bytes and the Action 138. A put stores the Command
// and the Action in the CAS, as the spec asks of a client before UpdateActionResult. The empty
// Directory is neither stored nor asked for: the spec has servers behave as though the empty blob
// were always there (ContentAddressableStorage), and BuildGrid, for one, leaves it out of
// FindMissingBlobs and of its checks of results.
//
// Written on servers: any change to these bytes (an argument, a field, the version "1") changes every
// action digest, and so leaves every entry on every server behind (a build misses them all, and writes
// them again under the new digests). Change the version, never the meaning.
#pragma once

#include "remote/reapi/cache_service.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::remote::reapi {

// The Command's arguments are k_command_program, k_action_version and the key; its one output path,
// and the result's one output file, is k_entry_path.
inline constexpr std::string_view k_command_program = "kiln-entry";
inline constexpr std::string_view k_action_version = "1";
inline constexpr std::string_view k_entry_path = "kiln-entry";

// The batch limit when the server sets none of its own (max_batch_total_size_bytes 0): 4 MiB, gRPC's
// default for the largest message a server takes. It is also the most a batch call ever carries
// here, whatever the server allows: a batch answer is a list, and a list of empty items costs far more
// memory than its bytes (grpc_cache_service.cpp bounds the answers accordingly).
inline constexpr std::int64_t k_default_batch_limit = std::int64_t{4} << 20;
// What a batch call holds beyond its blobs and the instance name: digests, field tags and lengths
// (for the few blobs, three at most, that one carries here).
inline constexpr std::int64_t k_batch_overhead = 1024;

// The digest of `bytes`: SHA-256 (libsodium), in lower-case hex.
Digest digest_of(std::span<const std::byte> bytes);

// A blob and its digest.
struct Blob {
  Digest digest;
  std::vector<std::byte> bytes;
};

// The Command and the Action of the store's key `key`, encoded (see above).
struct KeyAction {
  Blob command;
  Blob action;
};
KeyAction key_action(std::string_view key);

// The action digest of the store's key `key`: key_action(key).action.digest.
Digest action_digest(std::string_view key);

// Whether a digest a server sent can name a blob Kiln reads: 64 lower-case hex digits, and a size of
// 0 to `max_size`.
bool valid_digest(const Digest& digest, std::int64_t max_size);

// Whether blobs of `size` bytes together go in one batch call (else a byte stream), given the
// server's max_batch_total_size_bytes (0: none) and the instance name the call carries.
bool fits_in_batch(std::int64_t size, std::int64_t server_limit, std::size_t instance_size);

// Of blobs of `sizes` bytes, those that go in one batch call (their indices, in the order of
// `sizes`): the smallest first, as long as they fit together (fits_in_batch). The others each go by a
// byte stream. A put's blobs are at most three, a small Command and Action and the entry:
// k_batch_overhead holds their digests.
std::vector<std::size_t> batched_blobs(std::span<const std::int64_t> sizes, std::int64_t server_limit,
                                       std::size_t instance_size);

// ByteStream resource names: "{instance}/blobs/{hash}/{size}" to read and
// "{instance}/uploads/{upload_id}/blobs/{hash}/{size}" to write, without "{instance}/" when it is empty.
std::string read_resource(std::string_view instance, const Digest& blob);
std::string write_resource(std::string_view instance, std::string_view upload_id, const Digest& blob);

// A random (version 4) UUID, "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx": a byte stream upload's name.
std::string new_upload_id();

}  // namespace kiln::remote::reapi

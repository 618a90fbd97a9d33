// The calls of a REAPI cache server that Kiln makes, in plain types: grpc_cache_service.hpp makes
// them over gRPC, the tests with a server in memory. What the calls mean for Kiln's entries (which
// action, which file, what is checked) is action_cache_backend.hpp's to decide, so that it can be
// tested without a server; how a blob travels (one batch call or a byte stream, by its size) is the
// service's.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::remote::reapi {

// A blob's name in the content-addressable storage: the lower-case hex SHA-256 of its bytes, and
// their number.
struct Digest {
  std::string hash;
  std::int64_t size = 0;

  bool operator==(const Digest&) const = default;
};

// How one call ended.
struct Outcome {
  enum class Kind {
    ok,
    not_found,     // the server has no such action result or blob
    unreachable,   // no answer: cannot connect, or out of time (gRPC UNAVAILABLE, DEADLINE_EXCEEDED)
    failed,        // any other error, from the server or in what it sent
  };
  Kind kind = Kind::ok;
  // Unless ok: the status, the call and the server, "PERMISSION_DENIED from ActionCache.UpdateActionResult:
  // no writes here (grpc://cache:9092/main); check KILN_REMOTE_CACHE_TOKEN".
  std::string message;

  bool ok() const { return kind == Kind::ok; }
};

// One output file of an action result, as the server listed it.
struct OutputFile {
  std::string path;
  Digest digest;
};

// A blob to store: its digest and its bytes.
struct BlobToWrite {
  Digest digest;
  std::span<const std::byte> bytes;
};

using Deadline = std::chrono::steady_clock::time_point;

// Text a server sent (an error message, a digest that is not one), fit for a message: at most
// `max` characters, anything but printable ASCII shown as '?'.
inline std::string server_text(std::string_view text, std::size_t max = 200) {
  std::string out(text.substr(0, max));
  for (char& c : out)
    if (c < 0x20 || c > 0x7e) c = '?';
  if (text.size() > max) out += "...";
  return out;
}

class CacheService {
public:
  virtual ~CacheService() = default;
  // ActionCache.GetActionResult: the result's output files.
  virtual Outcome get_action_result(const Digest& action, std::vector<OutputFile>& files, Deadline deadline) = 0;
  // ActionCache.UpdateActionResult with Kiln's one shape of result: exit code 0 and one output file,
  // k_entry_path (digests.hpp), whose digest is `blob`.
  virtual Outcome update_action_result(const Digest& action, const Digest& blob, Deadline deadline) = 0;
  // ContentAddressableStorage.FindMissingBlobs, one call for all of `blobs`: those the server says
  // it lacks (only ever some of `blobs`, in their order).
  virtual Outcome find_missing(std::span<const Digest> blobs, std::vector<Digest>& missing, Deadline deadline) = 0;
  // The blob's bytes as the server sent them, at most blob.size of them (more is `failed`): whether
  // they are the blob's is for the caller to check.
  virtual Outcome read_blob(const Digest& blob, std::vector<std::byte>& bytes, Deadline deadline) = 0;
  // All of `blobs`, each `digest` naming its `bytes`: those that fit together in one
  // BatchUpdateBlobs call (digests.hpp's batched_blobs), the others each by a byte stream. Not ok
  // when any one is not stored.
  virtual Outcome write_blobs(std::span<const BlobToWrite> blobs, Deadline deadline) = 0;
};

}  // namespace kiln::remote::reapi

#include "remote/reapi/digests.hpp"

#include "remote/reapi/proto/remote_execution.pb.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <sodium.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <stdexcept>

namespace kiln::remote::reapi {

namespace {

std::string reapi_hex(const unsigned char* bytes, std::size_t size) {
  std::string hex(2 * size + 1, '\0');
  sodium_bin2hex(hex.data(), hex.size(), bytes, size);
  hex.pop_back();
  return hex;
}

Digest reapi_sha256(const unsigned char* bytes, std::size_t size) {
  std::array<unsigned char, crypto_hash_sha256_BYTES> hash{};
  crypto_hash_sha256(hash.data(), bytes, size);
  return {reapi_hex(hash.data(), hash.size()), static_cast<std::int64_t>(size)};
}

namespace rex = build::bazel::remote::execution::v2;

// A message's bytes in protobuf's deterministic encoding, with its digest.
Blob encoded(const google::protobuf::MessageLite& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    if (!message.SerializeToCodedStream(&coded)) throw std::runtime_error("a REAPI message cannot be encoded");
  }
  const auto* begin = reinterpret_cast<const std::byte*>(bytes.data());
  std::vector<std::byte> blob(begin, begin + bytes.size());
  Digest digest = digest_of(blob);
  return {std::move(digest), std::move(blob)};
}

void set_digest(rex::Digest& out, const Digest& digest) {
  out.set_hash(digest.hash);
  out.set_size_bytes(digest.size);
}

std::string with_instance(std::string_view instance, std::string rest) {
  return instance.empty() ? rest : std::string(instance) + "/" + rest;
}

}  // namespace

Digest digest_of(std::span<const std::byte> bytes) {
  return reapi_sha256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

KeyAction key_action(std::string_view key) {
  rex::Command command;
  command.add_arguments(std::string(k_command_program));
  command.add_arguments(std::string(k_action_version));
  command.add_arguments(std::string(key));
  command.add_output_paths(std::string(k_entry_path));
  KeyAction out;
  out.command = encoded(command);
  rex::Action action;
  set_digest(*action.mutable_command_digest(), out.command.digest);
  set_digest(*action.mutable_input_root_digest(), digest_of({}));   // the empty Directory
  out.action = encoded(action);
  return out;
}

Digest action_digest(std::string_view key) { return key_action(key).action.digest; }

bool valid_digest(const Digest& digest, std::int64_t max_size) {
  const auto lower_hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  return digest.hash.size() == 2 * crypto_hash_sha256_BYTES &&
         std::all_of(digest.hash.begin(), digest.hash.end(), lower_hex) && digest.size >= 0 &&
         digest.size <= max_size;
}

bool fits_in_batch(std::int64_t size, std::int64_t server_limit, std::size_t instance_size) {
  const std::int64_t limit = server_limit > 0 ? std::min(server_limit, k_default_batch_limit) : k_default_batch_limit;
  return size <= limit - k_batch_overhead - static_cast<std::int64_t>(instance_size);
}

std::vector<std::size_t> batched_blobs(std::span<const std::int64_t> sizes, std::int64_t server_limit,
                                       std::size_t instance_size) {
  std::vector<std::size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return sizes[a] < sizes[b]; });
  std::vector<std::size_t> batched;
  std::int64_t total = 0;
  for (const std::size_t i : order) {
    if (sizes[i] < 0 || !fits_in_batch(total + sizes[i], server_limit, instance_size)) break;
    total += sizes[i];
    batched.push_back(i);
  }
  std::sort(batched.begin(), batched.end());
  return batched;
}

std::string read_resource(std::string_view instance, const Digest& blob) {
  return with_instance(instance, "blobs/" + blob.hash + "/" + std::to_string(blob.size));
}

std::string write_resource(std::string_view instance, std::string_view upload_id, const Digest& blob) {
  return with_instance(instance, "uploads/" + std::string(upload_id) + "/blobs/" + blob.hash + "/" +
                                     std::to_string(blob.size));
}

std::string new_upload_id() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium cannot start");
  std::array<unsigned char, 16> bytes{};
  randombytes_buf(bytes.data(), bytes.size());
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0f) | 0x40);   // version 4: random
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3f) | 0x80);   // the RFC 4122 variant
  const std::string hex = reapi_hex(bytes.data(), bytes.size());
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) + "-" +
         hex.substr(20);
}

}  // namespace kiln::remote::reapi

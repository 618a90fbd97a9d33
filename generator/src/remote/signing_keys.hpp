// The Ed25519 key pair that signs remote cache entries (entry_signing.hpp), as files and variables:
//
//   signing key   a file holding one line: base64 of libsodium's 64-byte secret key (the 32-byte seed,
//                 then the public key); only builds that write the remote cache hold it
//   verify key    base64 of the 32-byte public key, given as it is or in a file of one line
//
// `kiln cache keygen DIR` writes a new pair as DIR/kiln-cache-signing.key (0600) and
// DIR/kiln-cache-verify.pub. Messages name key files, never a key's text: a secret key pasted into the
// wrong variable must not reach a CI log.
#pragma once

#include "util/result.hpp"

#include <array>
#include <filesystem>
#include <string>

namespace kiln::remote {

struct VerifyKey {
  std::array<unsigned char, 32> bytes{};
  bool operator==(const VerifyKey&) const = default;
};

struct SigningKey {
  std::array<unsigned char, 64> bytes{};
  VerifyKey public_half() const;
};

struct KeyPair {
  SigningKey signing;
  VerifyKey verify;
};

inline constexpr const char* k_signing_key_file = "kiln-cache-signing.key";
inline constexpr const char* k_verify_key_file = "kiln-cache-verify.pub";

KeyPair generate_key_pair();

// "1a2b3c4d5e6f7081": the first 8 bytes of the public key's BLAKE2b, to name a key in messages.
std::string key_id(const VerifyKey& key);
std::string to_base64(const VerifyKey& key);

// `variable` names the setting in errors: "KILN_REMOTE_CACHE_SIGNING_KEY=/ci/key: cannot read it: ...".
Result<SigningKey> read_signing_key(const std::string& variable, const std::filesystem::path& file);
// `value` is the key in base64, or else a file holding it.
Result<VerifyKey> read_verify_key(const std::string& variable, const std::string& value);

struct KeyFiles {
  std::filesystem::path signing;
  std::filesystem::path verify;
  VerifyKey key;
};

// Writes a new pair into `directory` (created if missing): each file written to a temporary file and
// linked into place, so that a key is whole or absent and an existing one is never replaced (an error
// naming it, and nothing written).
Result<KeyFiles> write_key_pair(const std::filesystem::path& directory);

}  // namespace kiln::remote

// Signed remote entries: a reader with the verify key uses only what a holder of the signing key
// stored. The XXH3-64 checksum of an entry (store/entry_format.hpp) catches accidents, which anyone can
// recompute; an Ed25519 signature (libsodium) can be made only with the signing key. On a server
// (written there: change the version, never the meaning):
//
//   kiln-signed 1 <key id: 16 hex digits> <signature: 128 hex digits>\n
//   <an entry (store/entry_format.hpp), whose header names the key it is stored under>
//
// The signature covers the entry's bytes from its header on, and so its key: an entry moved under
// another key fails its key check as surely as a changed byte fails the signature. The key id
// (signing_keys.hpp) says which key signed, for messages only: what is trusted is the signature.
#pragma once

#include "remote/signing_keys.hpp"
#include "store/entry_format.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace kiln::remote {

inline constexpr std::string_view k_signed_magic = "kiln-signed 1";
// "kiln-signed 1 " + 16 + " " + 128 + "\n"
inline constexpr std::size_t k_signature_line_size = 14 + 16 + 1 + 128 + 1;
// The most a server may answer for one entry: anything longer is refused, unread where possible.
inline constexpr std::size_t k_max_remote_entry_size = store::k_max_entry_size + k_signature_line_size;

// `entry` (an encoded store entry) with its signature line in front.
std::vector<std::byte> sign_entry(std::span<const std::byte> entry, const SigningKey& key);

struct OpenedEntry {
  enum class Trust {
    signed_by_key,   // signed with the verify key, and the signature holds
    unchecked,       // no verify key was given: signed or not, the entry is only checksummed
    unsigned_entry,  // no signature line
    other_key,       // signed with another key (`signer` names it)
    bad_signature,   // the signature does not hold: bytes changed after signing, or a forged line
  };
  Trust trust = Trust::unchecked;
  std::span<const std::byte> entry;   // the store entry (after any signature line)
  std::string signer;                 // the key id of the signature line, if any
};

// What a server answered for an entry: with a verify key (`verify` non-null), whether its signature
// holds; without one, the entry after any signature line.
OpenedEntry open_entry(std::span<const std::byte> answer, const VerifyKey* verify);

}  // namespace kiln::remote

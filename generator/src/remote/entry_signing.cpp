#include "remote/entry_signing.hpp"

#include <sodium.h>

#include <array>
#include <cstring>
#include <string_view>

namespace kiln::remote {

namespace {

std::string_view text_of(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

std::vector<std::byte> sign_entry(std::span<const std::byte> entry, const SigningKey& key) {
  std::array<unsigned char, crypto_sign_BYTES> signature{};
  crypto_sign_detached(signature.data(), nullptr, reinterpret_cast<const unsigned char*>(entry.data()), entry.size(),
                       key.bytes.data());
  std::array<char, 2 * crypto_sign_BYTES + 1> hex{};
  sodium_bin2hex(hex.data(), hex.size(), signature.data(), signature.size());
  const std::string line = std::string(k_signed_magic) + " " + key_id(key.public_half()) + " " + hex.data() + "\n";
  std::vector<std::byte> out(line.size() + entry.size());
  std::memcpy(out.data(), line.data(), line.size());
  std::memcpy(out.data() + line.size(), entry.data(), entry.size());
  return out;
}

OpenedEntry open_entry(std::span<const std::byte> answer, const VerifyKey* verify) {
  OpenedEntry opened;
  opened.entry = answer;
  const std::string_view text = text_of(answer.first(std::min(answer.size(), k_signature_line_size)));
  const std::size_t end = text.find('\n');
  // A line that starts as a signature but does not end where one does is a malformed signature.
  const bool has_line = text.starts_with(std::string(k_signed_magic) + " ");
  std::array<unsigned char, crypto_sign_BYTES> signature{};
  bool readable = false;
  if (has_line && end != std::string_view::npos) {
    opened.entry = answer.subspan(end + 1);
    const std::string_view fields = text.substr(k_signed_magic.size() + 1, end - k_signed_magic.size() - 1);
    const std::size_t space = fields.find(' ');
    opened.signer = std::string(fields.substr(0, std::min(space, std::size_t{16})));
    const std::string_view hex = space == std::string_view::npos ? std::string_view() : fields.substr(space + 1);
    std::size_t length = 0;
    const char* stop = nullptr;
    readable = space == 16 && hex.size() == 2 * signature.size() &&
               sodium_hex2bin(signature.data(), signature.size(), hex.data(), hex.size(), nullptr, &length, &stop) == 0 &&
               length == signature.size() && stop == hex.data() + hex.size();
  }
  if (!verify) return opened;
  if (!has_line) {
    opened.trust = OpenedEntry::Trust::unsigned_entry;
  } else if (readable && opened.signer != key_id(*verify)) {
    opened.trust = OpenedEntry::Trust::other_key;
  } else {
    const bool holds = readable && crypto_sign_verify_detached(signature.data(),
                                                               reinterpret_cast<const unsigned char*>(opened.entry.data()),
                                                               opened.entry.size(), verify->bytes.data()) == 0;
    opened.trust = holds ? OpenedEntry::Trust::signed_by_key : OpenedEntry::Trust::bad_signature;
  }
  return opened;
}

}  // namespace kiln::remote

#include "util/hasher.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdint>

namespace kiln {

std::string hex64(std::uint64_t value) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4) text[static_cast<std::size_t>(i)] = digits[value & 0xf];
  return text;
}

namespace {

bool printable(std::string_view value) {
  if (value.size() > 200) return false;
  for (const char c : value)
    if (static_cast<unsigned char>(c) < 0x20) return false;
  return true;
}

}  // namespace

struct Hasher::State {
  XXH3_state_t xxh;
};

Hasher::Hasher(Dump dump) : m_state(std::make_unique<State>()), m_keep_dump(dump == Dump::keep) {
  XXH3_128bits_reset(&m_state->xxh);
}

Hasher::~Hasher() = default;

void Hasher::add(std::string_view tag, std::string_view value) {
  add(tag, std::as_bytes(std::span(value.data(), value.size())));
}

void Hasher::add(std::string_view tag, std::span<const std::byte> value) {
  // tag, NUL, 8-byte length, bytes: self-delimiting, so field boundaries are part of the hash.
  const std::uint64_t size = value.size();
  XXH3_128bits_update(&m_state->xxh, tag.data(), tag.size());
  XXH3_128bits_update(&m_state->xxh, "", 1);
  XXH3_128bits_update(&m_state->xxh, &size, sizeof size);
  XXH3_128bits_update(&m_state->xxh, value.data(), value.size());
  if (!m_keep_dump) return;
  const std::string_view text(reinterpret_cast<const char*>(value.data()), value.size());
  m_dump += std::string(tag) + ": ";
  if (printable(text)) {
    m_dump += std::string(text) + "\n";
  } else {
    m_dump += std::to_string(value.size()) + " bytes, xxh3 " + hex64(XXH3_64bits(value.data(), value.size())) + "\n";
  }
}

std::string Hasher::hex_digest() const {
  const XXH128_hash_t digest = XXH3_128bits_digest(&m_state->xxh);
  return hex64(digest.high64) + hex64(digest.low64);
}

}  // namespace kiln

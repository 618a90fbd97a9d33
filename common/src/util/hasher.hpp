// Tagged hashing for cache keys (like ccache's hash.hpp): every field goes in with a tag and its
// length, so ("ab", "c") and ("a", "bc") never collide, and dump() says what went in when a key
// unexpectedly misses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace kiln {

// 16 lowercase hex digits: how keys and records spell a 64-bit hash.
std::string hex64(std::uint64_t value);

class Hasher {
public:
  // Whether dump() is kept: the generator's cache explains its misses with it; the runtime's keys,
  // made on every hit, have no use for it and skip its cost.
  enum class Dump { keep, skip };
  explicit Hasher(Dump dump = Dump::keep);
  ~Hasher();
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;

  void add(std::string_view tag, std::string_view value);
  void add(std::string_view tag, std::span<const std::byte> value);

  // XXH3-128 of everything added so far, as 32 lowercase hex digits.
  std::string hex_digest() const;
  // One "tag: value" line per field; long or binary values are shown by size and hash. Empty when
  // made with Dump::skip.
  const std::string& dump() const { return m_dump; }

private:
  struct State;
  std::unique_ptr<State> m_state;
  bool m_keep_dump;
  std::string m_dump;
};

}  // namespace kiln

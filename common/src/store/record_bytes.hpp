// The binary fields of the store's small records (direct records, harvest records): numbers in
// the machine's byte order (little-endian machines only, as the package format), strings as a u32
// length and their bytes. One writer and one bounded reader for both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <string_view>

namespace kiln::store {

template <typename Number>
void put_number(std::string& out, Number value) {
  char bytes[sizeof value];
  std::memcpy(bytes, &value, sizeof value);
  out.append(bytes, sizeof value);
}

inline void put_string(std::string& out, std::string_view text) {
  put_number(out, static_cast<std::uint32_t>(text.size()));
  out.append(text);
}

// Reads a record front to back; a read past its end, or a string longer than `max_string`, leaves
// it failed (ok false) and every later read empty.
struct RecordCursor {
  std::span<const std::byte> rest;
  std::size_t max_string = std::numeric_limits<std::size_t>::max();
  bool ok = true;

  template <typename Number>
  Number take() {
    Number value{};
    ok = ok && rest.size() >= sizeof value;
    if (!ok) return value;
    std::memcpy(&value, rest.data(), sizeof value);
    rest = rest.subspan(sizeof value);
    return value;
  }
  std::string take_string() {
    const std::uint32_t size = take<std::uint32_t>();
    ok = ok && size <= max_string && rest.size() >= size;
    if (!ok) return {};
    std::string text(reinterpret_cast<const char*>(rest.data()), size);
    rest = rest.subspan(size);
    return text;
  }
};

}  // namespace kiln::store

// Bounds-checked little-endian reads. Every access to cubin bytes goes through these two functions,
// so a hostile file can make a read fail but can never make one step outside its buffer.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace kiln::image {

using Bytes = std::span<const std::byte>;

// The bytes [offset, offset + size) of `bytes`, or nullopt if any of them lies outside. Written so
// that no sum can wrap: offsets and sizes come straight from the file.
inline std::optional<Bytes> sub_bytes(Bytes bytes, std::uint64_t offset, std::uint64_t size) {
  if (offset > bytes.size() || size > bytes.size() - offset) return std::nullopt;
  return bytes.subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(size));
}

// CUDA ELF is little-endian whatever the host is, so assemble the value byte by byte.
template <std::unsigned_integral T>
std::optional<T> load_le(Bytes bytes, std::uint64_t offset) {
  const std::optional<Bytes> field = sub_bytes(bytes, offset, sizeof(T));
  if (!field) return std::nullopt;
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    value |= std::uint64_t{std::to_integer<std::uint8_t>((*field)[i])} << (8 * i);
  return static_cast<T>(value);
}

}  // namespace kiln::image

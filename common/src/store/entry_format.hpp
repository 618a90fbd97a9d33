// One entry of the local store on disk (written to disk: change the version, never the meaning):
//
//   kiln-store 1 <key: 32 hex digits> <payload size: decimal> <XXH3-64 of the payload: 16 hex digits>\n
//   <payload: exactly `size` bytes, then the end of the file>
//
// The key in the header must be the one the entry is looked up by (a file renamed into the wrong
// place is not trusted), the file must end where the size says, and the checksum must match;
// anything else is a damaged entry, which reads as a miss.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace kiln::store {

inline constexpr std::string_view k_entry_magic = "kiln-store 1";

// The largest value the store keeps (a compiled image of one unit for one target is tens of MB at
// most): a larger one is not stored, and a file or a server's answer larger than its entry is not
// read, so that no entry costs more memory than this.
inline constexpr std::size_t k_max_payload_size = std::size_t{256} << 20;
// An entry's header is at most magic + 1 + 32 + 1 + 20 + 1 + 16 + 1 bytes.
inline constexpr std::size_t k_max_entry_header_size = 128;
inline constexpr std::size_t k_max_entry_size = k_max_payload_size + k_max_entry_header_size;

std::vector<std::byte> encode_entry(std::string_view key, std::span<const std::byte> payload);

// The payload of `file` when it is a sound entry for `key`; nothing otherwise.
std::optional<std::span<const std::byte>> decode_entry(std::span<const std::byte> file, std::string_view key);

// Whether `key` can name an entry: 32 lowercase hex digits.
bool valid_key(std::string_view key);

}  // namespace kiln::store

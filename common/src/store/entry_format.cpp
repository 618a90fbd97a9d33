#include "store/entry_format.hpp"

#include "format/checksum.hpp"
#include "util/hasher.hpp"

#include <charconv>
#include <cstdint>
#include <string>

namespace kiln::store {

namespace {

// XXH3-64, the package format's (its one copy in the loader, which reads entries too).
std::uint64_t checksum(std::span<const std::byte> bytes) { return format::checksum(bytes); }

}  // namespace

bool valid_key(std::string_view key) {
  if (key.size() != 32) return false;
  for (const char c : key)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::vector<std::byte> encode_entry(std::string_view key, std::span<const std::byte> payload) {
  const std::string header = std::string(k_entry_magic) + " " + std::string(key) + " " +
                             std::to_string(payload.size()) + " " + hex64(checksum(payload)) + "\n";
  std::vector<std::byte> out(header.size() + payload.size());
  const auto* h = reinterpret_cast<const std::byte*>(header.data());
  std::copy(h, h + header.size(), out.begin());
  std::copy(payload.begin(), payload.end(), out.begin() + static_cast<std::ptrdiff_t>(header.size()));
  return out;
}

std::optional<std::span<const std::byte>> decode_entry(std::span<const std::byte> file, std::string_view key) {
  const std::string_view text(reinterpret_cast<const char*>(file.data()),
                              std::min<std::size_t>(file.size(), k_max_entry_header_size));
  const std::size_t end = text.find('\n');
  if (end == std::string_view::npos) return std::nullopt;
  std::string_view header = text.substr(0, end);
  // "<magic> <key> ", compared in place: a hit reads two entries, and this is all their parsing.
  const std::size_t key_at = k_entry_magic.size() + 1;
  if (header.size() < key_at + key.size() + 1 || !header.starts_with(k_entry_magic) || header[key_at - 1] != ' ' ||
      header.substr(key_at, key.size()) != key || header[key_at + key.size()] != ' ')
    return std::nullopt;
  header.remove_prefix(key_at + key.size() + 1);
  const std::size_t space = header.find(' ');
  if (space == std::string_view::npos || header.size() - space - 1 != 16) return std::nullopt;
  std::uint64_t size = 0;
  const auto [ptr, ec] = std::from_chars(header.data(), header.data() + space, size);
  if (ec != std::errc() || ptr != header.data() + space) return std::nullopt;
  if (size > k_max_payload_size || size != file.size() - end - 1) return std::nullopt;   // truncated, or bytes after it
  const std::span<const std::byte> payload = file.subspan(end + 1);
  if (header.substr(space + 1) != hex64(checksum(payload))) return std::nullopt;
  return payload;
}

}  // namespace kiln::store

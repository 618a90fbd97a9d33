#include "name_index.hpp"

#include "checksum.hpp"

#include <bit>

namespace kiln::format::detail {

std::uint64_t name_hash(std::string_view name) { return checksum(std::as_bytes(std::span(name.data(), name.size()))); }

std::size_t name_index_size(std::size_t names) { return std::bit_ceil(std::max<std::size_t>(8, names * 2)); }

std::vector<NameIndexSlot> build_name_index(std::span<const std::string_view> names) {
  std::vector<NameIndexSlot> slots(name_index_size(names.size()), 0);
  const std::size_t mask = slots.size() - 1;
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::size_t at = static_cast<std::size_t>(name_hash(names[i])) & mask;
    while (slots[at] != 0) at = (at + 1) & mask;
    slots[at] = static_cast<NameIndexSlot>(i + 1);
  }
  return slots;
}

}  // namespace kiln::format::detail

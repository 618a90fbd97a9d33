// NAME_INDEX (layout.hpp): NAMES as an open-addressing hash table, one definition for the
// writer (which builds it) and the reader (which probes it).
#pragma once

#include "layout.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace kiln::format::detail {

// XXH3-64 (seed 0) of the name's bytes: where its probe starts.
std::uint64_t name_hash(std::string_view name);

// The slot count for `names` names: a power of two, at least twice as many, at least 8.
std::size_t name_index_size(std::size_t names);

// The table for `names` (in NAMES order): slot i holds 0 or 1 + a NAMES index.
std::vector<NameIndexSlot> build_name_index(std::span<const std::string_view> names);

// The first NAMES index along `name`'s probe for which `matches(index)` holds; nothing when the
// probe reaches an empty slot first, or `count` slots are not a power of two, or after `max_steps`
// slots (a caller that falls back to a search bounds its work against a damaged index). `matches`
// must reject indices out of range (a damaged index may hold any value). `present(slot)` says
// whether a slot's bytes may be read (a deferred reader loads its page); a slot that may not ends the
// probe.
template <class Matches, class Present>
std::optional<std::uint32_t> probe_name_index(std::span<const std::byte> slots, std::size_t count, std::string_view name,
                                              Matches matches, Present present, std::size_t max_steps = SIZE_MAX) {
  if (count == 0 || (count & (count - 1)) != 0 || slots.size() < count * sizeof(NameIndexSlot)) return std::nullopt;
  const std::size_t mask = count - 1;
  std::size_t at = static_cast<std::size_t>(name_hash(name)) & mask;
  for (std::size_t step = 0; step < count && step < max_steps; ++step, at = (at + 1) & mask) {
    NameIndexSlot slot = 0;
    if (!present(at)) return std::nullopt;
    std::memcpy(&slot, slots.data() + at * sizeof slot, sizeof slot);
    if (slot == 0) return std::nullopt;
    if (matches(slot - 1)) return slot - 1;
  }
  return std::nullopt;
}

}  // namespace kiln::format::detail

#include "unit_sources_check.hpp"

#include "record_io.hpp"

#include <algorithm>
#include <tuple>
#include <vector>

namespace kiln::format::detail {
namespace {

std::string record(std::uint32_t i) {
  return "UNIT_SOURCES record " + std::to_string(i) + ": ";
}

// One distinct StrRef among the records' sources.
struct Source {
  StrRef ref;
  std::uint32_t first_record;  // for messages
  std::uint32_t rank = 0;      // its place in string order; equal strings have equal ranks
};

bool same_ref(StrRef a, StrRef b) {
  return a.offset == b.offset && a.length == b.length;
}

// Ranks every distinct source reference in string order, so that the table's order is checked on
// (unit, rank) pairs. Comparing neighbouring records' strings directly could be quadratic: many
// units may each name the same two long sources with a long common prefix (two variants of one
// file legitimately share a reference). Distinct references that share no bytes total at most
// STRINGS' size, and a merge sort charges each comparison to the string it outputs, so ranking
// costs O(|STRINGS| log n).
class Ranker {
public:
  explicit Ranker(std::span<const std::byte> strings) : m_strings(strings) {}

  // Ranks `sources`: CORRUPT when two distinct references end at the same NUL.
  Status rank(std::vector<Source>& sources) const {
    std::sort(sources.begin(), sources.end(), [](const Source& a, const Source& b) {
      return std::tie(a.ref.offset, a.ref.length, a.first_record) < std::tie(b.ref.offset, b.ref.length, b.first_record);
    });
    sources.erase(std::unique(sources.begin(), sources.end(),
                              [](const Source& a, const Source& b) { return same_ref(a.ref, b.ref); }),
                  sources.end());
    std::vector<Source*> order;
    for (Source& s : sources) order.push_back(&s);
    std::sort(order.begin(), order.end(),
              [](const Source* a, const Source* b) { return StringIndex::end_of(a->ref) < StringIndex::end_of(b->ref); });
    for (std::size_t i = 1; i < order.size(); ++i) {
      if (StringIndex::end_of(order[i]->ref) == StringIndex::end_of(order[i - 1]->ref)) {
        const auto [first, second] = std::minmax(order[i]->first_record, order[i - 1]->first_record);
        return corrupt(record(second) + "source shares its bytes in STRINGS with record " + std::to_string(first) +
                       "'s");
      }
    }
    std::stable_sort(order.begin(), order.end(), [&](const Source* a, const Source* b) { return text(a) < text(b); });
    for (std::size_t i = 0; i < order.size(); ++i) {
      order[i]->rank = i == 0 ? 0 : order[i - 1]->rank + (text(order[i - 1]) == text(order[i]) ? 0 : 1);
    }
    return {};
  }

  // The rank of `ref`, one of the references rank() was given (sources sorted by reference).
  static std::uint32_t rank_of(const std::vector<Source>& sources, StrRef ref) {
    const auto it = std::lower_bound(sources.begin(), sources.end(), ref, [](const Source& s, StrRef r) {
      return std::tie(s.ref.offset, s.ref.length) < std::tie(r.offset, r.length);
    });
    return it->rank;
  }

private:
  std::string_view text(const Source* s) const { return string_at(m_strings, s->ref); }
  std::span<const std::byte> m_strings;
};

// The rules on each unit's run of records (the table is sorted by unit by now).
Status check_unit(const Tables& t, std::uint32_t first, std::uint32_t end) {
  const auto head = load_record<UnitSourceRecord>(t.unit_sources.bytes, first);
  for (std::uint32_t i = first + 1; i < end; ++i) {
    const auto r = load_record<UnitSourceRecord>(t.unit_sources.bytes, i);
    if (r.role != head.role) {
      return corrupt(record(i) + "role " + std::to_string(r.role) + " differs from record " + std::to_string(first) +
                     "'s (" + std::to_string(head.role) + "), of the same unit " + std::to_string(r.unit));
    }
  }
  if (head.role == static_cast<std::uint32_t>(UnitSourceRole::variant_of) && end - first > 1) {
    return corrupt(record(first + 1) + "unit " + std::to_string(head.unit) + " is a variant, of one source, but has " +
                   std::to_string(end - first) + " records");
  }
  const auto unit = load_record<UnitRecord>(t.units.bytes, head.unit);
  if (head.role == static_cast<std::uint32_t>(UnitSourceRole::link_member) && end - first == 1 &&
      string_at(t.strings, head.source) == string_at(t.strings, unit.source)) {
    return corrupt(record(first) + "the only source of unit " + std::to_string(head.unit) +
                   " is its own name (a unit of one source file has no records)");
  }
  return {};
}

}  // namespace

Status check_unit_sources(const Tables& t, const StringIndex& strings) {
  const RecordTable& table = t.unit_sources;
  std::vector<Source> sources;
  sources.reserve(table.count);
  for (std::uint32_t i = 0; i < table.count; ++i) {
    const auto r = load_record<UnitSourceRecord>(table.bytes, i);
    if (r.unit >= t.units.count) {
      return corrupt(record(i) + "unit " + std::to_string(r.unit) + " is out of range (" +
                     std::to_string(t.units.count) + " UNITS records)");
    }
    if (r.role > static_cast<std::uint32_t>(UnitSourceRole::variant_of)) {
      return corrupt(record(i) + "unknown role " + std::to_string(r.role));
    }
    if (!strings.valid(r.source)) {
      return corrupt(record(i) + "source (offset " + std::to_string(r.source.offset) + ", length " +
                     std::to_string(r.source.length) + ") is not a NUL-terminated string inside STRINGS");
    }
    if (r.source.length == 0) {
      return corrupt(record(i) + "source is empty");
    }
    sources.push_back({r.source, i});
  }
  KILN_TRY(Ranker(t.strings).rank(sources));
  std::uint32_t first = 0;
  for (std::uint32_t i = 0; i < table.count; ++i) {
    const auto r = load_record<UnitSourceRecord>(table.bytes, i);
    if (i > 0) {
      const auto previous = load_record<UnitSourceRecord>(table.bytes, i - 1);
      const auto key = std::pair(r.unit, Ranker::rank_of(sources, r.source));
      if (std::pair(previous.unit, Ranker::rank_of(sources, previous.source)) >= key) {
        return corrupt(record(i) + "out of order or a duplicate (the table is sorted by unit, then source)");
      }
      if (previous.unit != r.unit) {
        KILN_TRY(check_unit(t, first, i));
        first = i;
      }
    }
  }
  if (table.count == 0) return {};
  return check_unit(t, first, table.count);
}

}  // namespace kiln::format::detail

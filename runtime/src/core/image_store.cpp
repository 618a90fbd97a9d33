#include "core/image_store.hpp"

#include "format/image_check.hpp"

#include <cstdint>
#include <new>

namespace kiln::core {

std::string image_name(const format::PackageReader& reader, std::uint32_t image) {
  const format::ImageView view = reader.image(image);
  return std::string(reader.unit(view.unit).source) + " [" + std::string(reader.target(view.target).name) + "]";
}

ImageStore::ImageStore(const format::PackageReader& reader, const PackageSource& source, std::string label)
    : m_reader(reader), m_source(source), m_label(std::move(label)),
      m_slots(std::make_unique<Slot[]>(reader.image_count())), m_slot_count(reader.image_count()) {}

Status ImageStore::bytes(std::uint32_t image, std::span<const std::byte>& out) {
  if (image >= m_slot_count) {
    return fail(KILN_STATUS_INTERNAL_ERROR, m_label + ": image " + std::to_string(image) + " out of range");
  }
  Slot& slot = m_slots[image];
  // Double-checked: after the first call every caller takes only this acquire load.
  if (!slot.ready.load(std::memory_order_acquire)) {
    std::lock_guard lock(slot.mutex);
    if (!slot.ready.load(std::memory_order_relaxed)) {
      KILN_TRY(slot.failure);  // a damaged image is damaged for good: not decoded again
      Status made;
      try {
        made = produce(image, slot);
      } catch (const std::bad_alloc&) {
        made = fail(KILN_STATUS_OUT_OF_MEMORY, m_label + ": image " + image_name(m_reader, image) + " (" +
                                                   std::to_string(m_reader.image(image).raw_size) +
                                                   " bytes) does not fit in memory");
      }
      if (!made.ok()) {
        slot.owned = {};
        if (made.error().status != KILN_STATUS_OUT_OF_MEMORY) slot.failure = made;
        return made;
      }
      slot.ready.store(true, std::memory_order_release);
    }
  }
  out = slot.view;
  return {};
}

Status ImageStore::produce(std::uint32_t image, Slot& slot) const {
  KILN_TRY(m_source.fetch(m_reader.stored_image(image)));
  // The checksum stands behind bytes fetched without a stat: a failure may be a file changed since open.
  Result<std::span<const std::byte>> read = m_reader.image_bytes(image, slot.owned);
  if (!read) return m_source.explain(std::move(read).error());
  std::span<const std::byte> view = *read;
  const format::ImageView record = m_reader.image(image);
  if (std::string why = format::check_image(view, m_reader.target(record.target).target); !why.empty()) {
    return m_source.explain(fail(KILN_STATUS_IMAGE_CORRUPT, m_label + ": image " + image_name(m_reader, image) + " " + why));
  }
  if (view.data() != slot.owned.data() && reinterpret_cast<std::uintptr_t>(view.data()) % alignof(std::uint64_t) != 0) {
    slot.owned.assign(view.begin(), view.end());
    view = slot.owned;
  }
  slot.view = view;
  return {};
}

}  // namespace kiln::core

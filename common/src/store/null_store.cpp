// KILN_CACHE=0: the caches run, but nothing is kept.
#include "store/store.hpp"

namespace kiln::store {

namespace {

class NullStore final : public Store {
public:
  std::optional<std::vector<std::byte>> get(std::string_view) override { return std::nullopt; }
  void put(std::string_view, std::span<const std::byte>) override {}
  void add_counters(const Counters&) override {}
};

}  // namespace

std::unique_ptr<Store> make_null_store() { return std::make_unique<NullStore>(); }

}  // namespace kiln::store

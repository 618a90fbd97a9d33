// kiln/launch.h: kiln_kernel_launch_ex (reading a versioned kiln_launch_config), kernel attributes
// and occupancy.
#include "api/abi_guard.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

using kiln::api::from_handle;
using kiln::api::guarded;
using kiln::api::null_argument;
using kiln::Status;

namespace {

// A NULL argument other than the kernel, named with the kernel it was for.
Status null_argument_of(kiln_kernel* kernel, const char* function, const char* argument) {
  return kiln::fail(KILN_STATUS_INVALID_ARGUMENT, std::string(function) + ": " + argument + " is NULL (" +
                                                            from_handle(kernel)->subject() + ")");
}

// The first kiln_launch_config (0.3.0) ends after `priority`; later versions append fields.
constexpr std::size_t k_config_v1_size = offsetof(kiln_launch_config, priority) + sizeof(std::int32_t);

// Copies the caller's config into one of this header's size: a shorter (older) one leaves the
// fields it lacks zero, a longer (newer) one must have nothing set past what this runtime knows.
Status read_config(kiln_kernel* kernel, const kiln_launch_config& in, kiln_launch_config& out) {
  const std::string subject = from_handle(kernel)->subject();
  if (in.struct_size < k_config_v1_size) {
    return kiln::fail(KILN_STATUS_INVALID_ARGUMENT,
                            "kiln_kernel_launch_ex: config->struct_size is " + std::to_string(in.struct_size) +
                                ", below the " + std::to_string(k_config_v1_size) +
                                " bytes of the first kiln_launch_config; set it to sizeof(kiln_launch_config) (" +
                                subject + ")");
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(&in);
  if (in.struct_size > sizeof(kiln_launch_config) &&
      std::any_of(bytes + sizeof(kiln_launch_config), bytes + in.struct_size, [](unsigned char b) { return b != 0; })) {
    return kiln::fail(KILN_STATUS_INVALID_ARGUMENT,
                            "kiln_kernel_launch_ex: config sets fields past the " +
                                std::to_string(sizeof(kiln_launch_config)) + " bytes this runtime (" +
                                std::to_string(KILN_VERSION) + ") knows; it cannot apply them (" + subject + ")");
  }
  std::memset(&out, 0, sizeof out);
  std::memcpy(&out, &in, std::min(in.struct_size, sizeof out));
  const kiln_dim3 c = out.cluster;
  const bool none = c.x == 0 && c.y == 0 && c.z == 0;
  const bool all = c.x != 0 && c.y != 0 && c.z != 0;
  if (!none && !all) {
    return kiln::fail(KILN_STATUS_INVALID_ARGUMENT,
                            "kiln_kernel_launch_ex: cluster is {" + std::to_string(c.x) + ", " + std::to_string(c.y) +
                                ", " + std::to_string(c.z) + "}: either all three are 0 (no cluster) or all are "
                                "at least 1 (" + subject + ")");
  }
  return {};
}

}  // namespace

extern "C" {

KILN_API kiln_status kiln_kernel_launch_ex(kiln_kernel* kernel, const kiln_launch_config* config, void** args,
                                           size_t arg_count) {
  return guarded(kiln::api::kernel_owner(kernel), "kiln_kernel_launch_ex", [&]() -> Status {
    if (!kernel) return null_argument("kiln_kernel_launch_ex", "kernel");
    if (!config) return null_argument_of(kernel, "kiln_kernel_launch_ex", "config");
    kiln_launch_config c;
    KILN_TRY(read_config(kernel, *config, c));
    kiln::core::LaunchShape shape;
    shape.grid[0] = c.grid.x, shape.grid[1] = c.grid.y, shape.grid[2] = c.grid.z;
    shape.block[0] = c.block.x, shape.block[1] = c.block.y, shape.block[2] = c.block.z;
    shape.shared_memory_bytes = c.shared_memory_bytes;
    kiln::core::LaunchAttributes attributes;
    attributes.cluster[0] = c.cluster.x, attributes.cluster[1] = c.cluster.y, attributes.cluster[2] = c.cluster.z;
    attributes.cooperative = c.cooperative != 0;
    attributes.has_priority = c.has_priority != 0;
    attributes.priority = c.priority;
    return from_handle(kernel)->launch_ex(shape, attributes, c.stream, args, arg_count);
  });
}

KILN_API kiln_status kiln_kernel_attribute(kiln_kernel* kernel, kiln_kernel_attribute_kind attribute, int* value) {
  if (value) *value = 0;
  return guarded(kiln::api::kernel_owner(kernel), "kiln_kernel_attribute", [&]() -> Status {
    if (!kernel) return null_argument("kiln_kernel_attribute", "kernel");
    if (!value) return null_argument_of(kernel, "kiln_kernel_attribute", "value");
    return from_handle(kernel)->attribute(static_cast<int>(attribute), *value);
  });
}

KILN_API kiln_status kiln_kernel_max_active_blocks(kiln_kernel* kernel, int block_size, size_t dynamic_shared_bytes,
                                                   int* blocks_per_sm) {
  if (blocks_per_sm) *blocks_per_sm = 0;
  return guarded(kiln::api::kernel_owner(kernel), "kiln_kernel_max_active_blocks", [&]() -> Status {
    if (!kernel) return null_argument("kiln_kernel_max_active_blocks", "kernel");
    if (!blocks_per_sm) return null_argument_of(kernel, "kiln_kernel_max_active_blocks", "blocks_per_sm");
    if (block_size < 1) {
      return kiln::fail(KILN_STATUS_INVALID_ARGUMENT, "kiln_kernel_max_active_blocks: block_size is " +
                                                                std::to_string(block_size) + ", below 1 (" +
                                                                from_handle(kernel)->subject() + ")");
    }
    return from_handle(kernel)->max_active_blocks(block_size, dynamic_shared_bytes, *blocks_per_sm);
  });
}

KILN_API kiln_status kiln_kernel_suggest_block_size(kiln_kernel* kernel, size_t dynamic_shared_bytes,
                                                    int block_size_limit, int* min_grid_size, int* block_size) {
  if (min_grid_size) *min_grid_size = 0;
  if (block_size) *block_size = 0;
  return guarded(kiln::api::kernel_owner(kernel), "kiln_kernel_suggest_block_size", [&]() -> Status {
    if (!kernel) return null_argument("kiln_kernel_suggest_block_size", "kernel");
    if (!min_grid_size) return null_argument_of(kernel, "kiln_kernel_suggest_block_size", "min_grid_size");
    if (!block_size) return null_argument_of(kernel, "kiln_kernel_suggest_block_size", "block_size");
    if (block_size_limit < 0) {
      return kiln::fail(KILN_STATUS_INVALID_ARGUMENT, "kiln_kernel_suggest_block_size: block_size_limit is " +
                                                                std::to_string(block_size_limit) +
                                                                ", below 0 (0: no limit) (" +
                                                                from_handle(kernel)->subject() + ")");
    }
    return from_handle(kernel)->suggest_block_size(dynamic_shared_bytes, block_size_limit, *min_grid_size,
                                                   *block_size);
  });
}

}  // extern "C"

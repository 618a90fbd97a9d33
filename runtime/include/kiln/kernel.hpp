// kiln::Kernel: launches (typed, raw, and with launch attributes), parameters, kernel attributes and
// occupancy, over kiln_kernel_* (kiln.h, kiln/launch.h). Included by kiln.hpp.
#ifndef KILN_KERNEL_HPP
#define KILN_KERNEL_HPP

#include "kiln/error.hpp"
#include "kiln/kiln.h"
#include "kiln/launch.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kiln {

// Grid and block sizes; a plain number converts implicitly, so `launch(blocks, 256, ...)` works.
struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  constexpr Dim3(std::uint32_t x_ = 1, std::uint32_t y_ = 1, std::uint32_t z_ = 1) noexcept : x(x_), y(y_), z(z_) {}
  constexpr operator kiln_dim3() const noexcept { return kiln_dim3{x, y, z}; }
};

// One kernel parameter as the package records it (from the cubin): byte size and offset.
struct Param {
  std::size_t size = 0;
  std::size_t offset = 0;
};

// How Kernel::launch(config, args...) launches (kiln_launch_config; cuLaunchKernelEx). In C++20:
//   kernel.launch(kiln::LaunchConfig{.grid = blocks, .block = 256, .cluster = {2, 1, 1}}, args...);
// Every member has a default member initializer, so that leaving one out of an aggregate or
// designated initializer draws no -Wmissing-field-initializers.
struct LaunchConfig {
  Dim3 grid{};
  Dim3 block{};
  std::uint32_t shared_memory_bytes = 0;  // dynamic; above 48 KiB the kernel's limit is raised
  void* stream = nullptr;                 // a CUstream; nullptr: the default stream
  Dim3 cluster{0, 0, 0};                  // blocks per cluster (CC 9.0+); {0, 0, 0}: none
  bool cooperative = false;               // grid-wide synchronization; every block resident at once
  std::optional<int> priority{};          // the launch's priority (lower numbers are higher priority)

  kiln_launch_config to_c() const noexcept {
    kiln_launch_config c{};
    c.struct_size = sizeof c;
    c.grid = grid;
    c.block = block;
    c.shared_memory_bytes = shared_memory_bytes;
    c.stream = stream;
    c.cluster = cluster;
    c.cooperative = cooperative ? 1 : 0;
    c.has_priority = priority ? 1 : 0;
    c.priority = priority.value_or(0);
    return c;
  }
};

// What Kernel::attribute reads (kiln_kernel_attribute_kind).
enum class KernelAttribute : int {
  max_threads_per_block = KILN_KERNEL_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
  registers = KILN_KERNEL_ATTRIBUTE_REGISTERS,
  static_shared_bytes = KILN_KERNEL_ATTRIBUTE_STATIC_SHARED_BYTES,
  const_bytes = KILN_KERNEL_ATTRIBUTE_CONST_BYTES,
  local_bytes = KILN_KERNEL_ATTRIBUTE_LOCAL_BYTES,
  max_dynamic_shared_bytes = KILN_KERNEL_ATTRIBUTE_MAX_DYNAMIC_SHARED_BYTES,
  ptx_version = KILN_KERNEL_ATTRIBUTE_PTX_VERSION,
  binary_version = KILN_KERNEL_ATTRIBUTE_BINARY_VERSION,
  cache_mode_ca = KILN_KERNEL_ATTRIBUTE_CACHE_MODE_CA,
  preferred_shared_carveout = KILN_KERNEL_ATTRIBUTE_PREFERRED_SHARED_CARVEOUT,
  cluster_size_must_be_set = KILN_KERNEL_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET,
  required_cluster_width = KILN_KERNEL_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH,
  required_cluster_height = KILN_KERNEL_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT,
  required_cluster_depth = KILN_KERNEL_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH,
  non_portable_cluster_size_allowed = KILN_KERNEL_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
  cluster_scheduling_policy = KILN_KERNEL_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY,
};

// kiln_kernel_suggest_block_size's answer.
struct BlockSizeSuggestion {
  int min_grid_size = 0;  // the smallest grid that reaches the best occupancy on the whole device
  int block_size = 0;     // threads per block
};

// A launchable kernel. Non-owning: the Package it came from owns it and must outlive it. Launches,
// attributes and occupancy work on the device of the calling thread's current context.
class Kernel {
public:
  Kernel() noexcept = default;
  explicit Kernel(kiln_kernel* kernel) noexcept : m_kernel(kernel) {}

  kiln_kernel* get() const noexcept { return m_kernel; }
  explicit operator bool() const noexcept { return m_kernel != nullptr; }

  // The canonical name ("block_sum<float, 256>").
  std::string_view name() const {
    const char* n = kiln_kernel_name(m_kernel);
    return n ? std::string_view(n) : std::string_view();
  }
  // The symbol in the image ("_Z9block_sumIfLi256EEvPKT_PS0_i").
  std::string_view lowered_name() const {
    const char* n = kiln_kernel_lowered_name(m_kernel);
    return n ? std::string_view(n) : std::string_view();
  }

  // False when the package does not record this kernel's parameters: then params() is empty and
  // launches are not checked.
  bool params_known() const {
    std::size_t count = 0;
    detail::check(kiln_kernel_params(m_kernel, &count, nullptr, nullptr, 0));
    return count != KILN_PARAMS_UNKNOWN;
  }

  std::vector<Param> params() const {
    std::size_t count = 0;
    detail::check(kiln_kernel_params(m_kernel, &count, nullptr, nullptr, 0));
    if (count == KILN_PARAMS_UNKNOWN) return {};
    std::vector<std::size_t> sizes(count), offsets(count);
    detail::check(kiln_kernel_params(m_kernel, &count, sizes.data(), offsets.data(), sizes.size()));
    std::vector<Param> out(count);
    for (std::size_t i = 0; i < count; ++i) out[i] = Param{sizes[i], offsets[i]};
    return out;
  }

  // Launches with typed arguments, passed by value as the kernel receives them. Before anything
  // reaches the driver, the count and sizeof() of each argument are checked against the recorded
  // parameters (a double passed for a float parameter throws ARGUMENT_MISMATCH instead of
  // corrupting the parameter buffer). `stream` is a CUstream (nullptr: the default stream).
  template <class... Args>
  void launch(Dim3 grid, Dim3 block, std::uint32_t shared_memory_bytes, void* stream, Args&&... args) const {
    check_arguments<Args...>();
    std::array<void*, sizeof...(Args)> pointers = {const_cast<void*>(static_cast<const void*>(std::addressof(args)))...};
    launch_raw(grid, block, shared_memory_bytes, stream, pointers.data(), pointers.size());
  }

  // The same with launch attributes (clusters, cooperative launches, priority): cuLaunchKernelEx.
  // A template on the config's type only so that a braced grid, launch({4, 2}, 256, ...), never
  // picks this overload.
  template <class Config, class... Args,
            std::enable_if_t<std::is_same_v<std::remove_cv_t<std::remove_reference_t<Config>>, LaunchConfig>, int> = 0>
  void launch(Config&& config, Args&&... args) const {
    check_arguments<Args...>();
    std::array<void*, sizeof...(Args)> pointers = {const_cast<void*>(static_cast<const void*>(std::addressof(args)))...};
    launch_raw(config, pointers.data(), pointers.size());
  }

  // Launches with one pointer per parameter, as cuLaunchKernel takes them; only the count is checked.
  void launch_raw(Dim3 grid, Dim3 block, std::uint32_t shared_memory_bytes, void* stream, void** args,
                  std::size_t arg_count) const {
    detail::check(kiln_kernel_launch(m_kernel, grid, block, shared_memory_bytes, stream, args, arg_count));
  }
  void launch_raw(const LaunchConfig& config, void** args, std::size_t arg_count) const {
    const kiln_launch_config c = config.to_c();
    detail::check(kiln_kernel_launch_ex(m_kernel, &c, args, arg_count));
  }

  // An attribute of the kernel on the current context's device (registers, shared memory, ...).
  int attribute(KernelAttribute which) const {
    int value = 0;
    detail::check(kiln_kernel_attribute(m_kernel, static_cast<kiln_kernel_attribute_kind>(which), &value));
    return value;
  }

  // Blocks of `block_size` threads resident at once on one multiprocessor of the current device.
  int max_active_blocks(int block_size, std::size_t dynamic_shared_bytes = 0) const {
    int blocks = 0;
    detail::check(kiln_kernel_max_active_blocks(m_kernel, block_size, dynamic_shared_bytes, &blocks));
    return blocks;
  }

  // The block size of best occupancy (at most `block_size_limit` threads; 0: no limit of the caller's).
  BlockSizeSuggestion suggest_block_size(std::size_t dynamic_shared_bytes = 0, int block_size_limit = 0) const {
    BlockSizeSuggestion out;
    detail::check(kiln_kernel_suggest_block_size(m_kernel, dynamic_shared_bytes, block_size_limit, &out.min_grid_size,
                                                 &out.block_size));
    return out;
  }

  // The CUkernel for the current context's device (for driver calls Kiln does not wrap).
  void* handle() const {
    void* out = nullptr;
    detail::check(kiln_kernel_handle(m_kernel, &out));
    return out;
  }

private:
  // The count and sizeof() of typed arguments against the recorded parameters, if recorded.
  template <class... Args>
  void check_arguments() const {
    constexpr std::size_t n = sizeof...(Args);
    const std::array<std::size_t, n> arg_sizes = {sizeof(std::remove_reference_t<Args>)...};
    std::array<std::size_t, n> param_sizes{};
    std::size_t count = 0;
    detail::check(kiln_kernel_params(m_kernel, &count, param_sizes.data(), nullptr, n));
    if (count == KILN_PARAMS_UNKNOWN) return;
    if (count != n) {
      throw kiln::Error(KILN_STATUS_ARGUMENT_MISMATCH, "kernel '" + std::string(name()) + "' takes " +
                                                           std::to_string(count) + " arguments, " + std::to_string(n) +
                                                           " given");
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (arg_sizes[i] != param_sizes[i]) {
        throw kiln::Error(KILN_STATUS_ARGUMENT_MISMATCH,
                          "kernel '" + std::string(name()) + "': argument " + std::to_string(i) + " is " +
                              std::to_string(arg_sizes[i]) + " bytes but parameter " + std::to_string(i) + " takes " +
                              std::to_string(param_sizes[i]) + " (indices from 0)");
      }
    }
  }

  kiln_kernel* m_kernel = nullptr;
};

}  // namespace kiln

#endif  // KILN_KERNEL_HPP

// The kernels a package compiled at run time (through the compile library): one small package per
// (name, device target), owned by the package that was asked, whose kernels are handed out as the
// package's own. Its failures are recorded on the package that was asked, too.
#pragma once

#include "driver/cuda_types.hpp"
#include "format/package_reader.hpp"
#include "util/result.hpp"

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::core {

class Kernel;
class Package;

class CompiledKernels {
public:
  explicit CompiledKernels(Package& owner) : m_owner(owner) {}
  ~CompiledKernels();

  // The kernel `name` compiled for the current device, after the package's own lookup gave `miss`:
  // KERNEL_NOT_FOUND (an instantiation it lacks), or NO_IMAGE_FOR_DEVICE (none of its images runs
  // here). Without carried sources, or with KILN_JIT=0, the miss is returned, saying why it stays one.
  Status get(std::string_view name, const Status& miss, Kernel*& out);
  // The kernel `name` compiled earlier for the current device, by this process or another, when a
  // direct record still holds (direct_hits.hpp); null otherwise, and get() answers. Reads nothing
  // of the package but its header, so a name its index does not find can be answered before the
  // whole index is checked.
  Kernel* compiled_before(std::string_view name);

private:
  struct Entry {
    // What holds the compiled package (the compile library's bytes, or a direct record's entry),
    // which `package` reads in place.
    std::shared_ptr<const void> owner;
    std::unique_ptr<Package> package;
    Kernel* kernel = nullptr;
  };
  // The current device and its target ("sm_90").
  Status current_target(driver::CUdevice& device, std::string& target);
  // The kernel from a direct record (direct_hits.hpp), or null for the compile library to answer.
  Kernel* direct(const std::string& normalized, driver::CUdevice device, const std::string& target);
  // Opens the compiled package `compiled`, which lies in `owner`, and hands out its kernel
  // `expression` for `request`, resolved on `device` (whose target it was compiled for).
  // `checksums`: whether its content checksums are computed, or were checked with the record's.
  Status adopt(const std::pair<std::string, std::string>& request, const std::string& expression,
               driver::CUdevice device, const std::string& target, std::shared_ptr<const void> owner,
               std::span<const std::byte> compiled, format::Checksums checksums, Kernel*& out);

  Package& m_owner;
  std::mutex m_mutex;                    // guards m_entries; held through a compile, which the cache
                                         // serializes per key anyway
  // By (the expression compiled, target); every spelling asked maps to it, so two spellings of one
  // kernel are one kernel.
  std::map<std::pair<std::string, std::string>, Entry> m_entries;
  std::map<std::pair<std::string, std::string>, Kernel*> m_requests;   // (normalized name asked, target)
};

}  // namespace kiln::core

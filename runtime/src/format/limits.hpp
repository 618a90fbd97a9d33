// Limits on the work a package can ask of a reader. A package Kiln writes never reaches them; a
// hostile one cannot make a reader exceed them (docs/package-format.md, "Limits").
#pragma once

#include <cstdint>

namespace kiln::format {

// An image decodes to at most this many bytes, whatever the package: the driver takes no larger
// image, and a zstd frame of a few bytes can claim terabytes.
inline constexpr std::uint64_t k_max_image_size = std::uint64_t{2} << 30;  // 2 GiB
// ... and to at most this many times the size of the whole package. Real cubins and PTX compress
// 3 to 20 times; zstd itself can reach about 32000 (a run-length block), which is what a bomb uses.
inline constexpr std::uint64_t k_max_image_ratio = 1024;

// A package lists at most this many targets. CUDA 13 knows about 20 architectures, each as sm_XY,
// sm_XYa/f and compute_XY: a real package lists a few dozen. Bounds what is per kernel and target
// (`kiln inspect` lists each kernel's targets).
inline constexpr std::uint32_t k_max_targets = 256;

// The largest raw_size a package of `file_size` bytes may declare for an image.
constexpr std::uint64_t max_image_size(std::uint64_t file_size) {
  return file_size > k_max_image_size / k_max_image_ratio ? k_max_image_size : file_size * k_max_image_ratio;
}

// The largest sum of raw_size over all images of a package of `file_size` bytes.
constexpr std::uint64_t max_total_image_size(std::uint64_t file_size) { return file_size * k_max_image_ratio; }

}  // namespace kiln::format

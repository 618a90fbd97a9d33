// The checks an image passes before any loader sees it: the driver's cuLibraryLoadData takes no
// length, so an image must be one it can read within its stored size. Shared by the runtime (every
// image it loads or hands out) and `kiln verify`; cheap enough for the first-launch path (the ELF
// header and its table bounds for a cubin; one scan for PTX).
#pragma once

#include "target.hpp"

#include <cstddef>
#include <span>
#include <string>

namespace kiln::format {

// "" when `image` is well formed for `target`, else why not ("is not an ELF file", "is a cubin for
// sm_80"), to follow the image's name in a message. A cubin (target kind sass) must be a
// little-endian 64-bit ELF file for EM_CUDA (190) whose header, program header table and section
// header table (64-byte entries) lie inside the image and whose e_flags give the target's SM.
// PTX must end in its NUL, hold no other NUL, and have a `.version` and a `.target` directive.
std::string check_image(std::span<const std::byte> image, const Target& target);

// The SM a cubin's ELF header names (90 for sm_90, sm_90a), read by the ABI version's rule
// (docs/cuda-platform-facts.md §5.1). The image must hold the 64-byte header.
unsigned cubin_sm(std::span<const std::byte> image);

}  // namespace kiln::format

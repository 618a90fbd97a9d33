#include "image_check.hpp"

#include <cstdint>
#include <cstring>
#include <string_view>

namespace kiln::format {
namespace {

constexpr std::size_t k_elf_header_size = 64;
constexpr std::uint16_t k_em_cuda = 190;
constexpr std::uint16_t k_section_header_size = 64;
constexpr std::uint16_t k_program_header_size = 56;

template <class T>
T load(std::span<const std::byte> bytes, std::size_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

// Whether `count` entries of `entry_size` bytes at `offset` lie inside `size` bytes, without overflow.
bool table_inside(std::uint64_t offset, std::uint64_t count, std::uint64_t entry_size, std::uint64_t size) {
  return offset <= size && count <= (size - offset) / entry_size;
}

std::string check_cubin(std::span<const std::byte> image, const Target& target) {
  if (image.size() < k_elf_header_size) {
    return "is too small for an ELF header (" + std::to_string(image.size()) + " bytes)";
  }
  const auto byte = [&](std::size_t i) { return std::to_integer<unsigned>(image[i]); };
  if (byte(0) != 0x7f || byte(1) != 'E' || byte(2) != 'L' || byte(3) != 'F') return "is not an ELF file";
  if (byte(4) != 2 || byte(5) != 1) return "is not a little-endian 64-bit ELF file";
  const auto machine = load<std::uint16_t>(image, 18);
  if (machine != k_em_cuda) return "is an ELF file for machine " + std::to_string(machine) + ", not CUDA (190)";
  const auto program_offset = load<std::uint64_t>(image, 32);
  const auto section_offset = load<std::uint64_t>(image, 40);
  const auto program_entry = load<std::uint16_t>(image, 54);
  const auto program_count = load<std::uint16_t>(image, 56);
  const auto section_entry = load<std::uint16_t>(image, 58);
  std::uint64_t section_count = load<std::uint16_t>(image, 60);
  if (program_count != 0 && (program_entry != k_program_header_size ||
                             !table_inside(program_offset, program_count, program_entry, image.size()))) {
    return "has a program header table outside its " + std::to_string(image.size()) + " bytes";
  }
  if (section_offset == 0 || section_entry != k_section_header_size) {
    return "has no section header table of 64-byte entries";
  }
  if (!table_inside(section_offset, 1, k_section_header_size, image.size())) {
    return "has its section header table outside its " + std::to_string(image.size()) + " bytes";
  }
  if (section_count == 0) section_count = load<std::uint64_t>(image, section_offset + 32);  // extended numbering
  if (!table_inside(section_offset, section_count, k_section_header_size, image.size())) {
    return "has its section header table outside its " + std::to_string(image.size()) + " bytes";
  }
  const unsigned sm = cubin_sm(image);
  if (sm != target.arch) {
    return "is a cubin for sm_" + std::to_string(sm) + ", not " + target.name();
  }
  return {};
}

std::string check_ptx(std::span<const std::byte> image) {
  const std::string_view text(reinterpret_cast<const char*>(image.data()), image.size());
  if (text.empty() || text.back() != '\0') return "is PTX without its terminating NUL byte";
  const std::string_view body = text.substr(0, text.size() - 1);
  if (body.find('\0') != std::string_view::npos) return "is PTX with a NUL byte before its end";
  if (body.find(".version") == std::string_view::npos) return "is PTX without a .version directive";
  if (body.find(".target") == std::string_view::npos) return "is PTX without a .target directive";
  return {};
}

}  // namespace

unsigned cubin_sm(std::span<const std::byte> image) {
  const unsigned abi_version = std::to_integer<unsigned>(image[8]);
  const auto flags = load<std::uint32_t>(image, 48);
  return abi_version >= 8 ? (flags >> 8) & 0xff : flags & 0xff;
}

std::string check_image(std::span<const std::byte> image, const Target& target) {
  return target.kind == TargetKind::sass ? check_cubin(image, target) : check_ptx(image);
}

}  // namespace kiln::format

// A read-only, bounds-checked view of a 64-bit little-endian ELF file: header, sections, symbols
// and notes, with no CUDA meaning attached (cuda_info.hpp and cubin_reader.cpp add that).
//
// What the file says about itself is checked once, in ElfFile::parse: the section table and the
// section-name string table. A section whose bytes lie outside the file is not an error by itself:
// CUDA relocatable objects give memory-only sections (.nv.global is SHT_LOPROC+7 there) their own
// types, so that is only known to be wrong when someone asks for the bytes, through contents().
// The views point into the caller's buffer, which must outlive them.
#pragma once

#include "image/byte_view.hpp"
#include "util/result.hpp"

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kiln::image {

// ELF constants used here (values from the ELF gABI; the CUDA ones from cuda-platform-facts.md 5).
inline constexpr std::uint32_t k_sht_symtab = 2;
inline constexpr std::uint32_t k_sht_strtab = 3;
inline constexpr std::uint32_t k_sht_note = 7;
inline constexpr std::uint32_t k_sht_nobits = 8;
inline constexpr std::uint32_t k_sht_dynsym = 11;
inline constexpr std::uint32_t k_sht_symtab_shndx = 18;
inline constexpr std::uint8_t k_stt_object = 1;
inline constexpr std::uint8_t k_stt_func = 2;
inline constexpr std::uint8_t k_stt_section = 3;
inline constexpr std::uint8_t k_stt_file = 4;
inline constexpr std::uint8_t k_stb_local = 0;
inline constexpr std::uint8_t k_stb_global = 1;
inline constexpr std::uint8_t k_stb_weak = 2;

struct ElfHeader {
  std::uint8_t os_abi = 0;        // e_ident[EI_OSABI]
  std::uint8_t abi_version = 0;   // e_ident[EI_ABIVERSION]
  std::uint16_t type = 0;         // e_type: 1 relocatable, 2 executable, 3 shared object
  std::uint16_t machine = 0;      // e_machine
  std::uint32_t flags = 0;        // e_flags
};

struct ElfSection {
  std::string_view name;
  std::uint32_t type = 0;
  std::uint32_t link = 0;
  std::uint32_t info = 0;
  std::uint64_t entry_size = 0;
  std::uint64_t size_in_memory = 0;
  Bytes bytes;                    // valid only if in_file; empty for NOBITS
  bool in_file = true;            // false: [sh_offset, sh_offset + sh_size) is not inside the file

  // The section's bytes, or an error naming it if they lie outside the file.
  Result<Bytes> contents() const;
};

struct ElfSymbol {
  std::string_view name;
  std::uint64_t value = 0;
  std::uint64_t size = 0;
  std::uint8_t type = 0;          // STT_*
  std::uint8_t binding = 0;       // STB_*
  std::uint8_t other = 0;         // st_other; CUDA keeps its own flags here (0x10: kernel entry)
  std::uint32_t section = 0;      // index into sections(); 0 when undefined, absolute or common
};

struct ElfNote {
  std::string_view owner;         // without its terminating NUL
  std::uint32_t type = 0;
  Bytes description;
};

class ElfFile {
public:
  // Fails, naming no file (the caller adds its label), on anything that is not a well-formed
  // ELF64 little-endian file whose sections all lie inside `bytes`.
  static Result<ElfFile> parse(Bytes bytes);

  const ElfHeader& header() const { return m_header; }
  const std::vector<ElfSection>& sections() const { return m_sections; }
  const ElfSection* find_section(std::string_view name) const;  // the first of that name

  // The symbols of the SHT_SYMTAB section (none if the file has no symbol table), minus entry 0;
  // with k_sht_dynsym, those of the dynamic symbol table, which a shared library exports.
  Result<std::vector<ElfSymbol>> symbols(std::uint32_t table_type = k_sht_symtab) const;

private:
  ElfHeader m_header;
  std::vector<ElfSection> m_sections;
  // A cubin has a few sections per kernel and is asked for one .nv.info.<kernel> per kernel, so
  // a linear search would be quadratic in the kernel count.
  std::unordered_map<std::string_view, std::size_t> m_by_name;
};

// A NUL-terminated string that starts at `offset` in a string table and ends inside it.
Result<std::string_view> string_at(Bytes table, std::uint64_t offset);

// The notes of one SHT_NOTE section, in order.
Result<std::vector<ElfNote>> parse_notes(Bytes section);

}  // namespace kiln::image

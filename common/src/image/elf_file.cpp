#include "image/elf_file.hpp"

#include <string>

namespace kiln::image {
namespace {

constexpr std::uint64_t k_header_size = 64;
constexpr std::uint64_t k_section_header_size = 64;
constexpr std::uint64_t k_symbol_size = 24;
constexpr std::uint16_t k_shn_loreserve = 0xff00;
constexpr std::uint16_t k_shn_xindex = 0xffff;

Error elf_error(std::string message) { return Error{std::move(message)}; }

// The raw fields of one section header; the name is resolved once the string table is known.
struct RawSection {
  std::uint32_t name = 0, type = 0, link = 0, info = 0;
  std::uint64_t offset = 0, size = 0, entry_size = 0;
};

// The caller has checked that the whole table lies inside the file, so every load succeeds.
RawSection read_section_header(Bytes table, std::uint64_t index) {
  const std::uint64_t at = index * k_section_header_size;
  RawSection s;
  s.name = load_le<std::uint32_t>(table, at + 0).value_or(0);
  s.type = load_le<std::uint32_t>(table, at + 4).value_or(0);
  s.offset = load_le<std::uint64_t>(table, at + 24).value_or(0);
  s.size = load_le<std::uint64_t>(table, at + 32).value_or(0);
  s.link = load_le<std::uint32_t>(table, at + 40).value_or(0);
  s.info = load_le<std::uint32_t>(table, at + 44).value_or(0);
  s.entry_size = load_le<std::uint64_t>(table, at + 56).value_or(0);
  return s;
}

}  // namespace

Result<std::string_view> string_at(Bytes table, std::uint64_t offset) {
  if (offset >= table.size()) return elf_error("string offset " + std::to_string(offset) + " is outside its table");
  const auto* begin = reinterpret_cast<const char*>(table.data()) + offset;
  const std::string_view rest(begin, table.size() - static_cast<std::size_t>(offset));
  const std::size_t end = rest.find('\0');
  if (end == std::string_view::npos) return elf_error("unterminated string at offset " + std::to_string(offset));
  return rest.substr(0, end);
}

Result<ElfFile> ElfFile::parse(Bytes bytes) {
  if (bytes.size() < k_header_size) return elf_error("too small for an ELF header (" + std::to_string(bytes.size()) + " bytes)");
  const auto byte_at = [&](std::size_t i) { return std::to_integer<std::uint8_t>(bytes[i]); };
  if (byte_at(0) != 0x7f || byte_at(1) != 'E' || byte_at(2) != 'L' || byte_at(3) != 'F') return elf_error("not an ELF file");
  if (byte_at(4) != 2) return elf_error("not a 64-bit ELF file (EI_CLASS " + std::to_string(byte_at(4)) + ")");
  if (byte_at(5) != 1) return elf_error("not a little-endian ELF file (EI_DATA " + std::to_string(byte_at(5)) + ")");

  ElfFile file;
  file.m_header.os_abi = byte_at(7);
  file.m_header.abi_version = byte_at(8);
  file.m_header.type = *load_le<std::uint16_t>(bytes, 16);
  file.m_header.machine = *load_le<std::uint16_t>(bytes, 18);
  file.m_header.flags = *load_le<std::uint32_t>(bytes, 48);
  const std::uint64_t table_offset = *load_le<std::uint64_t>(bytes, 40);
  const std::uint16_t entry_size = *load_le<std::uint16_t>(bytes, 58);
  std::uint64_t count = *load_le<std::uint16_t>(bytes, 60);
  std::uint64_t names_index = *load_le<std::uint16_t>(bytes, 62);
  // Program headers are not read, but a file that has lost them (ptxas puts them last) is truncated.
  const std::uint64_t program_headers = *load_le<std::uint64_t>(bytes, 32);
  const std::uint16_t program_header_size = *load_le<std::uint16_t>(bytes, 54);
  const std::uint16_t program_header_count = *load_le<std::uint16_t>(bytes, 56);
  if (program_header_count != 0 &&
      !sub_bytes(bytes, program_headers, std::uint64_t{program_header_size} * program_header_count))
    return elf_error("program header table lies outside the file");
  if (table_offset == 0) return elf_error("no section header table");
  if (entry_size != k_section_header_size) return elf_error("unexpected section header size " + std::to_string(entry_size));

  // Extended numbering (gABI): with 0xff00 sections or more, section 0 holds the real count/index.
  if (count == 0 || names_index == k_shn_xindex) {
    const std::optional<Bytes> first = sub_bytes(bytes, table_offset, k_section_header_size);
    if (!first) return elf_error("section header table lies outside the file");
    const RawSection zero = read_section_header(*first, 0);
    if (count == 0) count = zero.size;
    if (names_index == k_shn_xindex) names_index = zero.link;
  }
  if (count > bytes.size() / k_section_header_size) return elf_error("section header table lies outside the file");
  const std::optional<Bytes> table = sub_bytes(bytes, table_offset, count * k_section_header_size);
  if (!table) return elf_error("section header table lies outside the file");
  if (names_index == 0 || names_index >= count) return elf_error("bad section-name table index " + std::to_string(names_index));

  std::vector<RawSection> raw;
  raw.reserve(static_cast<std::size_t>(count));
  for (std::uint64_t i = 0; i < count; ++i) raw.push_back(read_section_header(*table, i));

  file.m_sections.resize(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    ElfSection& s = file.m_sections[i];
    s.type = raw[i].type;
    s.link = raw[i].link;
    s.info = raw[i].info;
    s.entry_size = raw[i].entry_size;
    s.size_in_memory = raw[i].size;
    if (s.type == k_sht_nobits || i == 0) continue;  // occupies no file bytes
    const std::optional<Bytes> contents = sub_bytes(bytes, raw[i].offset, raw[i].size);
    s.in_file = contents.has_value();
    s.bytes = contents.value_or(Bytes{});
  }
  const ElfSection& names = file.m_sections[static_cast<std::size_t>(names_index)];
  if (names.type != k_sht_strtab || !names.in_file) return elf_error("bad section-name table");
  for (std::size_t i = 1; i < raw.size(); ++i) {
    Result<std::string_view> name = string_at(names.bytes, raw[i].name);
    if (!name) return elf_error("section " + std::to_string(i) + ": bad name: " + name.error().message);
    file.m_sections[i].name = *name;
    file.m_by_name.emplace(*name, i);  // keeps the first of duplicate names
  }
  return file;
}

Result<Bytes> ElfSection::contents() const {
  if (!in_file) return elf_error("section " + std::string(name) + " lies outside the file");
  return bytes;
}

const ElfSection* ElfFile::find_section(std::string_view name) const {
  const auto it = m_by_name.find(name);
  return it == m_by_name.end() || name.empty() ? nullptr : &m_sections[it->second];
}

Result<std::vector<ElfSymbol>> ElfFile::symbols(std::uint32_t table_type) const {
  std::vector<ElfSymbol> out;
  const ElfSection* symtab = nullptr;
  std::size_t symtab_index = 0;
  for (std::size_t i = 0; i < m_sections.size(); ++i) {
    if (m_sections[i].type != table_type) continue;
    if (symtab) return elf_error("more than one symbol table");
    symtab = &m_sections[i];
    symtab_index = i;
  }
  if (!symtab) return out;
  if (symtab->entry_size != k_symbol_size) return elf_error("unexpected symbol size " + std::to_string(symtab->entry_size));
  if (symtab->link == 0 || symtab->link >= m_sections.size() || m_sections[symtab->link].type != k_sht_strtab)
    return elf_error("symbol table does not link to a string table");
  const Result<Bytes> table = symtab->contents();
  const Result<Bytes> strings = m_sections[symtab->link].contents();
  if (!table) return table.error();
  if (!strings) return strings.error();
  if (table->size() % k_symbol_size != 0) return elf_error("symbol table size is not a multiple of 24");

  // Section indices that do not fit in st_shndx live in a parallel SHT_SYMTAB_SHNDX table.
  Bytes extended;
  for (const ElfSection& s : m_sections)
    if (s.type == k_sht_symtab_shndx && s.link == symtab_index) extended = s.bytes;

  const std::uint64_t count = table->size() / k_symbol_size;
  out.reserve(static_cast<std::size_t>(count));
  for (std::uint64_t i = 1; i < count; ++i) {
    const Bytes entry = table->subspan(static_cast<std::size_t>(i * k_symbol_size), k_symbol_size);
    ElfSymbol sym;
    const std::uint8_t info = *load_le<std::uint8_t>(entry, 4);
    sym.type = static_cast<std::uint8_t>(info & 0xf);
    sym.binding = static_cast<std::uint8_t>(info >> 4);
    sym.other = *load_le<std::uint8_t>(entry, 5);
    sym.value = *load_le<std::uint64_t>(entry, 8);
    sym.size = *load_le<std::uint64_t>(entry, 16);
    std::uint32_t section = *load_le<std::uint16_t>(entry, 6);
    if (section == k_shn_xindex) {
      const std::optional<std::uint32_t> real = load_le<std::uint32_t>(extended, i * 4);
      if (!real) return elf_error("symbol " + std::to_string(i) + ": missing extended section index");
      section = *real;
    } else if (section >= k_shn_loreserve) {
      section = 0;  // SHN_ABS, SHN_COMMON: not in any section
    }
    if (section >= m_sections.size()) return elf_error("symbol " + std::to_string(i) + ": bad section index " + std::to_string(section));
    sym.section = section;
    Result<std::string_view> name = string_at(*strings, *load_le<std::uint32_t>(entry, 0));
    if (!name) return elf_error("symbol " + std::to_string(i) + ": bad name: " + name.error().message);
    sym.name = *name;
    out.push_back(sym);
  }
  return out;
}

Result<std::vector<ElfNote>> parse_notes(Bytes section) {
  // Each note: u32 namesz, u32 descsz, u32 type, then name and description, each padded to 4 bytes.
  std::vector<ElfNote> notes;
  std::uint64_t at = 0;
  const auto padded = [](std::uint64_t n) { return (n + 3) & ~std::uint64_t{3}; };
  while (at < section.size()) {
    const auto name_size = load_le<std::uint32_t>(section, at);
    const auto desc_size = load_le<std::uint32_t>(section, at + 4);
    const auto type = load_le<std::uint32_t>(section, at + 8);
    if (!name_size || !desc_size || !type) return elf_error("truncated note header at offset " + std::to_string(at));
    const std::optional<Bytes> name = sub_bytes(section, at + 12, *name_size);
    if (!name) return elf_error("note name at offset " + std::to_string(at) + " runs past its section");
    const std::uint64_t desc_at = at + 12 + padded(*name_size);
    const std::optional<Bytes> desc = sub_bytes(section, desc_at, *desc_size);
    if (!desc) return elf_error("note description at offset " + std::to_string(at) + " runs past its section");
    std::string_view owner(reinterpret_cast<const char*>(name->data()), name->size());
    if (!owner.empty() && owner.back() == '\0') owner.remove_suffix(1);
    notes.push_back(ElfNote{owner, *type, *desc});
    at = desc_at + padded(*desc_size);
  }
  return notes;
}

}  // namespace kiln::image

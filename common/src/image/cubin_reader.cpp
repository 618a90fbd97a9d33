// Gives CUDA meaning to a parsed ELF file: which SM it targets, the toolkit's target string, which
// symbols are kernels and variables, and each kernel's parameter layout.
#include "image/cubin_reader.hpp"

#include "image/cuda_info.hpp"
#include "image/elf_file.hpp"

#include <cstdio>
#include <string>

namespace kiln::image {
namespace {

constexpr std::uint8_t k_osabi_cuda_v1 = 0x33;   // CUDA 12 and older
constexpr std::uint8_t k_osabi_cuda_v2 = 0x41;   // CUDA 13
constexpr std::uint8_t k_abi_version_v2 = 8;
constexpr std::uint8_t k_sto_cuda_managed = 0x04;  // measured on __managed__ variables, both ELF types
// nvcc -rdc objects type their variables STT_LOPROC (13) rather than STT_OBJECT.
constexpr std::uint8_t k_stt_cuda_object = 13;
constexpr std::uint32_t k_note_tkinfo = 0x7d0;

std::string hex(std::uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%x", value);
  return text;
}

// The SM and the 'a' bit of e_flags. The layout changed with ELF ABI version 8 (CUDA 13), and
// CUDA 13 writes version 8 for every SM, so the version decides, never the SM value.
void decode_flags(const ElfHeader& header, CubinInfo& info) {
  if (header.abi_version >= k_abi_version_v2) {
    info.sm = static_cast<int>((header.flags >> 8) & 0xff);
    info.arch_specific = (header.flags & 0x8) != 0;    // EF_CUDA_ACCELERATORS; ptxas 13.0 leaves it clear
  } else {
    info.sm = static_cast<int>(header.flags & 0xff);
    info.arch_specific = (header.flags & 0x800) != 0;  // EF_CUDA_ACCELERATORS_V1
  }
}

// Because ptxas 13.0 does not set the e_flags bit, the 'a' of sm_90a shows only in .nv.compat.
Status read_compat(const ElfFile& elf, CubinInfo& info) {
  const ElfSection* compat = elf.find_section(".nv.compat");
  if (!compat) return Ok{};
  Result<Bytes> bytes = compat->contents();
  if (!bytes) return bytes.error();
  Result<std::vector<CudaAttribute>> records = parse_attributes(*bytes);
  if (!records) return Error{".nv.compat: " + records.error().message};
  for (const CudaAttribute& r : *records)
    if (r.format == 2 && r.attribute == k_compat_arch_specific && r.value == 1) info.arch_specific = true;
  return Ok{};
}

// The 'f' of sm_100f is recorded nowhere but in the ptxas command line inside this note.
Status read_toolkit_note(const ElfFile& elf, CubinInfo& info) {
  const ElfSection* section = elf.find_section(".note.nv.tkinfo");
  if (!section) return Ok{};
  Result<Bytes> bytes = section->contents();
  if (!bytes) return bytes.error();
  Result<std::vector<ElfNote>> notes = parse_notes(*bytes);
  if (!notes) return Error{".note.nv.tkinfo: " + notes.error().message};
  for (const ElfNote& note : *notes)
    if (note.owner == "NVIDIA Corp" && note.type == k_note_tkinfo) {
      info.toolkit_arch = toolkit_arch_from_note(note.description);
      if (!info.toolkit_arch.empty()) break;
    }
  return Ok{};
}

// Host-visible variables live in .nv.global (.nv.global.init when initialized) and in constant
// banks other than bank 0, which holds each kernel's parameters (and, in -rdc objects, a local
// `_param` object per kernel).
bool is_variable_section(std::string_view name) {
  return name.starts_with(".nv.global") || (name.starts_with(".nv.constant") && !name.starts_with(".nv.constant0"));
}

Status read_kernel_params(const ElfFile& elf, CubinInfo& info) {
  for (const CubinSymbol& symbol : info.symbols) {
    if (!symbol.is_kernel) continue;
    // A kernel without this section would have unknown parameters; ptxas 13 writes it for all.
    const ElfSection* section = elf.find_section(".nv.info." + symbol.name);
    if (!section) continue;
    Result<Bytes> bytes = section->contents();
    if (!bytes) return Error{"kernel " + symbol.name + ": " + bytes.error().message};
    Result<std::vector<CudaAttribute>> attributes = parse_attributes(*bytes);
    if (!attributes) return Error{"kernel " + symbol.name + ": " + attributes.error().message};
    Result<std::vector<format::ParamRecord>> params = kernel_params(*attributes);
    if (!params) return Error{"kernel " + symbol.name + ": " + params.error().message};
    info.kernel_params.push_back(CubinKernelParams{symbol.name, std::move(*params)});
  }
  return Ok{};
}

// Registers per thread, one EIATTR_REGCOUNT record per kernel in the global .nv.info, by symbol
// table index; `by_index[i]` is the position in info.symbols of symbol i, or -1.
Status read_register_counts(const ElfFile& elf, const std::vector<int>& by_index, CubinInfo& info) {
  const ElfSection* section = elf.find_section(".nv.info");
  if (!section) return Ok{};
  Result<Bytes> bytes = section->contents();
  if (!bytes) return Error{".nv.info: " + bytes.error().message};
  // Informational: a record this reader cannot step over leaves the counts unknown, not the cubin bad.
  Result<std::vector<CudaAttribute>> attributes = parse_attributes(*bytes);
  if (!attributes) return Ok{};
  for (const CudaAttribute& a : *attributes) {
    if (a.attribute != k_eiattr_regcount || a.format != k_eifmt_sval) continue;
    const std::optional<std::uint32_t> symbol = load_le<std::uint32_t>(a.payload, 0);
    const std::optional<std::uint32_t> registers = load_le<std::uint32_t>(a.payload, 4);
    if (!symbol || !registers || *symbol >= by_index.size() || by_index[*symbol] < 0) continue;
    info.symbols[static_cast<std::size_t>(by_index[*symbol])].registers = static_cast<int>(*registers);
  }
  return Ok{};
}

}  // namespace

Result<CubinInfo> read_cubin(std::span<const std::byte> bytes, const std::string& label) {
  const auto fail = [&](const std::string& message) { return Error{label + ": " + message}; };
  Result<ElfFile> parsed = ElfFile::parse(bytes);
  if (!parsed) return fail(parsed.error().message);
  const ElfFile& elf = *parsed;
  const ElfHeader& header = elf.header();
  if (header.machine != k_em_cuda) return fail("not a CUDA ELF (e_machine " + std::to_string(header.machine) + ")");
  if (header.os_abi != k_osabi_cuda_v1 && header.os_abi != k_osabi_cuda_v2)
    return fail("not a CUDA ELF (EI_OSABI " + hex(header.os_abi) + ")");
  if (header.type != 1 && header.type != 2) return fail("not a cubin (e_type " + std::to_string(header.type) + ")");

  CubinInfo info;
  info.elf_abi_version = header.abi_version;
  decode_flags(header, info);
  if (info.sm == 0) return fail("e_flags " + hex(header.flags) + " name no SM");
  if (Status s = read_compat(elf, info); !s) return fail(s.error().message);
  if (Status s = read_toolkit_note(elf, info); !s) return fail(s.error().message);

  Result<std::vector<ElfSymbol>> symbols = elf.symbols();
  if (!symbols) return fail(symbols.error().message);
  // symbols() starts at symbol table index 1 (index 0 is the null symbol).
  std::vector<int> by_index(symbols->size() + 1, -1);
  for (std::size_t position = 0; position < symbols->size(); ++position) {
    const ElfSymbol& s = (*symbols)[position];
    // Undefined symbols (.nv.reservedSmem.offset0) are requests to the driver, not contents.
    if (s.section == 0 || s.name.empty() || s.type == k_stt_section || s.type == k_stt_file) continue;
    CubinSymbol symbol;
    symbol.name = std::string(s.name);
    symbol.section = std::string(elf.sections()[s.section].name);
    symbol.is_kernel = s.type == k_stt_func && (s.other & k_sto_cuda_entry) != 0;
    symbol.is_weak = s.binding == k_stb_weak;
    symbol.is_variable = (s.type == k_stt_object || s.type == k_stt_cuda_object) && is_variable_section(symbol.section);
    symbol.is_managed = symbol.is_variable && (s.other & k_sto_cuda_managed) != 0;
    symbol.size = s.size;
    by_index[position + 1] = static_cast<int>(info.symbols.size());
    info.symbols.push_back(std::move(symbol));
  }
  if (Status s = read_kernel_params(elf, info); !s) return fail(s.error().message);
  if (Status s = read_register_counts(elf, by_index, info); !s) return fail(s.error().message);
  return info;
}

}  // namespace kiln::image

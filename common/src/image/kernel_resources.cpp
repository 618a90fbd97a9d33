// Reads each kernel's resource records from a cubin. Every record is checked before it is believed:
// a package is input from anywhere, and a wrong number here would mislead whoever tunes a kernel.
#include "image/kernel_resources.hpp"

#include "image/elf_file.hpp"

#include <unordered_map>

namespace kiln::image {
namespace {


Error resource_error(std::string message) { return Error{std::move(message)}; }

std::string attribute_name(std::uint8_t attribute) {
  switch (attribute) {
    case k_eiattr_regcount: return "REGCOUNT";
    case k_eiattr_frame_size: return "FRAME_SIZE";
    case k_eiattr_min_stack_size: return "MIN_STACK_SIZE";
    case k_eiattr_max_threads: return "MAX_THREADS";
    case k_eiattr_reqntid: return "REQNTID";
  }
  return "attribute " + std::to_string(attribute);
}

// Sets `field` to `value`, or fails if an earlier record said something else.
template <class T>
Status record(std::optional<T>& field, const T& value, std::uint8_t attribute) {
  if (field && *field != value) return resource_error("two " + attribute_name(attribute) + " records that disagree");
  field = value;
  return Ok{};
}

// The size of `section` if the cubin has it; sections of memory that is not in the file (.nv.shared,
// .nv.local) have no bytes, so the header's size is the answer.
std::uint64_t section_size(const ElfFile& elf, const std::string& name) {
  const ElfSection* section = elf.find_section(name);
  return section ? section->size_in_memory : 0;
}

// The per-kernel numbers of the global .nv.info: {u32 symbol, u32 value} records, by symbol index.
// Records for functions that are not kernels (a recursive device function has a frame of its own)
// are stepped over; one naming no symbol at all is an error.
Status read_global_records(const ElfFile& elf, std::size_t symbol_count,
                           const std::unordered_map<std::uint32_t, std::size_t>& kernel_at,
                           std::vector<KernelResources>& kernels) {
  const ElfSection* section = elf.find_section(".nv.info");
  if (!section) return Ok{};
  Result<Bytes> bytes = section->contents();
  if (!bytes) return bytes.error();
  Result<std::vector<CudaAttribute>> attributes = parse_attributes(*bytes);
  if (!attributes) return resource_error(".nv.info: " + attributes.error().message);
  for (const CudaAttribute& a : *attributes) {
    if (a.attribute != k_eiattr_regcount && a.attribute != k_eiattr_frame_size && a.attribute != k_eiattr_min_stack_size)
      continue;
    if (a.format != k_eifmt_sval || a.payload.size() != 8)
      return resource_error(".nv.info: " + attribute_name(a.attribute) + " record of unexpected shape");
    const std::uint32_t symbol = *load_le<std::uint32_t>(a.payload, 0);
    const std::uint32_t value = *load_le<std::uint32_t>(a.payload, 4);
    if (symbol == 0 || symbol > symbol_count)
      return resource_error(".nv.info: " + attribute_name(a.attribute) + " record names symbol " + std::to_string(symbol) +
                            ", which does not exist");
    const auto kernel = kernel_at.find(symbol);
    if (kernel == kernel_at.end()) continue;
    KernelResources& k = kernels[kernel->second];
    std::optional<std::uint32_t>& field = a.attribute == k_eiattr_regcount  ? k.registers
                                          : a.attribute == k_eiattr_frame_size ? k.frame_size
                                                                               : k.stack_size;
    if (Status s = record(field, value, a.attribute); !s) return resource_error("kernel " + k.kernel + ": " + s.error().message);
  }
  return Ok{};
}

}  // namespace

Status read_thread_limits(const std::vector<CudaAttribute>& attributes, KernelResources& out) {
  for (const CudaAttribute& a : attributes) {
    if (a.attribute != k_eiattr_max_threads && a.attribute != k_eiattr_reqntid) continue;
    if (a.format != k_eifmt_sval || a.payload.size() != 12)
      return resource_error(attribute_name(a.attribute) + " record of unexpected shape");
    const ThreadShape shape = {*load_le<std::uint32_t>(a.payload, 0), *load_le<std::uint32_t>(a.payload, 4),
                               *load_le<std::uint32_t>(a.payload, 8)};
    if (Status s = record(a.attribute == k_eiattr_max_threads ? out.max_threads : out.required_threads, shape, a.attribute); !s)
      return s;
  }
  return Ok{};
}

Result<std::vector<KernelResources>> read_kernel_resources(Bytes cubin, const std::string& label) {
  const auto fail = [&](const std::string& message) { return Error{label + ": " + message}; };
  Result<ElfFile> parsed = ElfFile::parse(cubin);
  if (!parsed) return fail(parsed.error().message);
  const ElfFile& elf = *parsed;
  if (elf.header().machine != k_em_cuda) return fail("not a CUDA ELF (e_machine " + std::to_string(elf.header().machine) + ")");
  Result<std::vector<ElfSymbol>> symbols = elf.symbols();
  if (!symbols) return fail(symbols.error().message);

  std::vector<KernelResources> kernels;
  std::unordered_map<std::uint32_t, std::size_t> kernel_at;  // symbol table index -> position in kernels
  for (std::size_t i = 0; i < symbols->size(); ++i) {
    const ElfSymbol& s = (*symbols)[i];
    if (s.type != k_stt_func || (s.other & k_sto_cuda_entry) == 0 || s.section == 0 || s.name.empty()) continue;
    KernelResources k;
    k.kernel = std::string(s.name);
    k.shared_size = section_size(elf, ".nv.shared." + k.kernel);
    k.local_size = section_size(elf, ".nv.local." + k.kernel);
    k.constant_size = section_size(elf, ".nv.constant0." + k.kernel);
    if (const ElfSection* info = elf.find_section(".nv.info." + k.kernel)) {
      Result<Bytes> bytes = info->contents();
      if (!bytes) return fail("kernel " + k.kernel + ": " + bytes.error().message);
      Result<std::vector<CudaAttribute>> attributes = parse_attributes(*bytes);
      if (!attributes) return fail("kernel " + k.kernel + ": .nv.info." + k.kernel + ": " + attributes.error().message);
      if (Status limits = read_thread_limits(*attributes, k); !limits) return fail("kernel " + k.kernel + ": " + limits.error().message);
    }
    kernel_at.emplace(static_cast<std::uint32_t>(i + 1), kernels.size());  // symbols() leaves out entry 0
    kernels.push_back(std::move(k));
  }
  if (Status s = read_global_records(elf, symbols->size(), kernel_at, kernels); !s) return fail(s.error().message);
  return kernels;
}

}  // namespace kiln::image

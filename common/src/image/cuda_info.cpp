#include "image/cuda_info.hpp"

#include <algorithm>
#include <optional>

namespace kiln::image {
namespace {

Error attribute_error(std::string message) { return Error{std::move(message)}; }

// Two hex digits: attribute codes are bytes.
std::string hex_byte(unsigned value) {
  static constexpr char k_digits[] = "0123456789abcdef";
  return std::string("0x") + k_digits[(value >> 4) & 0xf] + k_digits[value & 0xf];
}

struct KernelParam {
  std::uint32_t ordinal = 0;
  format::ParamRecord record{};
};

}  // namespace

Result<std::vector<CudaAttribute>> parse_attributes(Bytes section) {
  std::vector<CudaAttribute> out;
  std::uint64_t at = 0;
  while (at < section.size()) {
    const std::optional<Bytes> head = sub_bytes(section, at, 4);
    if (!head) return attribute_error("truncated attribute record at offset " + std::to_string(at));
    CudaAttribute a;
    a.format = *load_le<std::uint8_t>(*head, 0);
    a.attribute = *load_le<std::uint8_t>(*head, 1);
    a.value = *load_le<std::uint16_t>(*head, 2);
    at += 4;
    if (a.format == k_eifmt_sval) {
      const std::optional<Bytes> payload = sub_bytes(section, at, a.value);
      if (!payload) return attribute_error("attribute " + hex_byte(a.attribute) + " at offset " + std::to_string(at - 4) +
                                " runs past its section");
      a.payload = *payload;
      at += a.value;
    } else if (a.format < 1 || a.format > 3) {
      return attribute_error("unknown attribute format " + std::to_string(a.format) + " at offset " + std::to_string(at - 4));
    }
    out.push_back(a);
  }
  return out;
}

Result<std::vector<format::ParamRecord>> kernel_params(const std::vector<CudaAttribute>& attributes) {
  std::vector<KernelParam> params;
  std::optional<std::uint32_t> cbank_size;       // from PARAM_CBANK
  std::optional<std::uint32_t> declared_size;    // from CBANK_PARAM_SIZE
  for (const CudaAttribute& a : attributes) {
    if (a.attribute == k_eiattr_kparam_info || a.attribute == k_eiattr_kparam_info_v2) {
      const bool v2 = a.attribute == k_eiattr_kparam_info_v2;
      if (a.format != k_eifmt_sval || a.payload.size() != 12)
        return attribute_error(std::string(v2 ? "KPARAM_INFO_V2" : "KPARAM_INFO") + " record of unexpected shape");
      // {u32 index, u16 ordinal, u16 offset, u32 size-and-flags}. V1 packs the size into the top 14
      // bits (float: 0x0011f000 -> 4); V2 keeps it in the low 16 bits and flags above.
      KernelParam p;
      p.ordinal = *load_le<std::uint16_t>(a.payload, 4);
      p.record.offset = *load_le<std::uint16_t>(a.payload, 6);
      p.record.size = v2 ? *load_le<std::uint16_t>(a.payload, 8) : *load_le<std::uint32_t>(a.payload, 8) >> 18;
      params.push_back(p);
    } else if (a.attribute == k_eiattr_param_cbank) {
      if (a.format != k_eifmt_sval || a.payload.size() != 8) return attribute_error("PARAM_CBANK record of unexpected shape");
      cbank_size = *load_le<std::uint16_t>(a.payload, 6);
    } else if (a.attribute == k_eiattr_cbank_param_size) {
      declared_size = a.value;
    }
  }

  // ptxas lists them by descending ordinal; the package wants ordinal order.
  std::sort(params.begin(), params.end(), [](const KernelParam& l, const KernelParam& r) { return l.ordinal < r.ordinal; });
  std::vector<format::ParamRecord> out;
  std::uint32_t end = 0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const KernelParam& p = params[i];
    if (p.ordinal != i) return attribute_error("parameter ordinals are not 0.." + std::to_string(params.size() - 1) +
                                    " (found " + std::to_string(p.ordinal) + " at position " + std::to_string(i) + ")");
    if (p.record.offset < end) return attribute_error("parameter " + std::to_string(i) + " overlaps the one before it");
    end = p.record.offset + p.record.size;
    out.push_back(p.record);
  }
  // Measured: both sizes equal the end of the last parameter, with no padding after it (a kernel
  // (double, char) has 9). A mismatch means records are missing or the layout is not understood.
  for (const std::optional<std::uint32_t>& size : {cbank_size, declared_size})
    if (size && *size != end)
      return attribute_error("parameter block is " + std::to_string(*size) + " bytes but the parameters end at " + std::to_string(end));
  return out;
}

std::string toolkit_arch_from_note(Bytes description) {
  // The description starts with a small binary header and continues with NUL-separated strings
  // ("ptxas", the toolkit version, a build id, the command line). Splitting all of it on NULs is
  // simpler than decoding the undocumented header, and the header cannot contain "-arch".
  const std::string_view text(reinterpret_cast<const char*>(description.data()), description.size());
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t stop = text.find('\0', start);
    if (stop == std::string_view::npos) stop = text.size();
    const std::string_view piece = text.substr(start, stop - start);
    start = stop + 1;
    for (std::size_t at = piece.find("-arch"); at != std::string_view::npos; at = piece.find("-arch", at + 1)) {
      if (at > 0 && piece[at - 1] != ' ') continue;
      std::size_t value = at + 5;
      if (value >= piece.size() || (piece[value] != ' ' && piece[value] != '=')) continue;
      while (value < piece.size() && (piece[value] == ' ' || piece[value] == '=')) ++value;
      const std::string_view arch = piece.substr(value, piece.find(' ', value) - value);
      if (arch.starts_with("sm_")) return std::string(arch);
    }
  }
  return {};
}

}  // namespace kiln::image

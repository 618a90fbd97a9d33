// The CUDA-specific records inside a cubin: the attribute lists of `.nv.info*` and `.nv.compat`, and
// the toolkit note. Byte layouts measured on CUDA 13.0 output (cuda-platform-facts.md section 5 and
// the tests in tests/image); NVIDIA does not document them.
//
// Attribute record: {u8 format, u8 attribute, u16 value}. Format 4 (EIFMT_SVAL) is followed by
// `value` bytes of payload; formats 1 (NVAL), 2 (BVAL) and 3 (HVAL) are the 4 bytes alone, with any
// value in the u16. Other formats have no known length, so a list that holds one cannot be read on.
#pragma once

#include "format/layout.hpp"
#include "image/byte_view.hpp"
#include "util/result.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::image {

struct CudaAttribute {
  std::uint8_t format = 0;
  std::uint8_t attribute = 0;
  std::uint16_t value = 0;     // the payload size for format 4
  Bytes payload;               // empty unless format 4
};

inline constexpr std::uint8_t k_eifmt_sval = 4;
inline constexpr std::uint8_t k_eiattr_param_cbank = 0x0a;       // SVAL: u32 symbol, u16 offset, u16 size
inline constexpr std::uint8_t k_eiattr_kparam_info = 0x17;       // SVAL 12: size = u32 at +8 >> 18
inline constexpr std::uint8_t k_eiattr_cbank_param_size = 0x19;  // HVAL: parameter block size
inline constexpr std::uint8_t k_eiattr_kparam_info_v2 = 0x45;    // SVAL 12: size = u16 at +8
inline constexpr std::uint8_t k_eiattr_regcount = 0x2f;          // .nv.info SVAL 8: u32 symbol, u32 registers
inline constexpr std::uint8_t k_eiattr_frame_size = 0x11;        // .nv.info SVAL 8: u32 symbol, u32 bytes
inline constexpr std::uint8_t k_eiattr_min_stack_size = 0x12;    // .nv.info SVAL 8: u32 symbol, u32 bytes
inline constexpr std::uint8_t k_eiattr_max_threads = 0x05;       // SVAL 12: u32 x, y, z (.maxntid)
inline constexpr std::uint8_t k_eiattr_reqntid = 0x10;           // SVAL 12: u32 x, y, z (.reqntid)
inline constexpr std::uint8_t k_sto_cuda_entry = 0x10;           // st_other of a kernel's symbol
inline constexpr std::uint16_t k_em_cuda = 190;                  // e_machine of a CUDA ELF
inline constexpr std::uint8_t k_compat_arch_specific = 0x09;     // .nv.compat BVAL: 1 for an 'a' target

Result<std::vector<CudaAttribute>> parse_attributes(Bytes section);

// A kernel's parameters (by ordinal) from its `.nv.info.<kernel>` attributes. Both record versions
// occur: ptxas 13.0 writes KPARAM_INFO_V2 for a kernel whose parameters exceed 4 KiB. The ordinals
// must be 0..n-1, the parameters must not overlap, and the block size that PARAM_CBANK and
// CBANK_PARAM_SIZE record (when present) must be where the last parameter ends.
Result<std::vector<format::ParamRecord>> kernel_params(const std::vector<CudaAttribute>& attributes);

// "sm_100f" from the ptxas command line ("-arch sm_100f ") that `.note.nv.tkinfo` records; ""
// when the description holds none. Never fails: the note is informational.
std::string toolkit_arch_from_note(Bytes description);

}  // namespace kiln::image

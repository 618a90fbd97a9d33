// Reads what the generator and `kiln verify` need from a cubin (a CUDA ELF image) without a GPU:
// the SM in the header, the target string the toolkit recorded, symbols, and kernel parameters and
// register counts from .nv.info. Facts about the layout: cuda-platform-facts.md section 5.
#pragma once

#include "format/layout.hpp"
#include "util/result.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kiln::image {

struct CubinSymbol {
  std::string name;
  bool is_kernel = false;      // STT_FUNC with STO_CUDA_ENTRY (st_other & 0x10)
  bool is_weak = false;        // STB_WEAK: template instantiations
  bool is_variable = false;    // STT_OBJECT (or, in -rdc objects, STT_LOPROC) defined in .nv.global*
                               // or a .nv.constant bank other than 0 (bank 0 holds parameters)
  bool is_managed = false;     // a variable with st_other & 0x4: __managed__ (it lives in .nv.global)
  std::string section;         // name of the section it is defined in ("" if undefined)
  std::uint64_t size = 0;
  int registers = 0;           // kernels: registers per thread (EIATTR_REGCOUNT); 0 if not recorded
};

struct CubinKernelParams {
  std::string kernel;                       // lowered name
  std::vector<format::ParamRecord> params;  // by ordinal (EIATTR_KPARAM_INFO or _V2)
};

struct CubinInfo {
  int elf_abi_version = 0;       // e_ident[EI_ABIVERSION]: 8 for CUDA 13
  int sm = 0;                    // from e_flags, decoded by ABI version: 90, 100, 121
  bool arch_specific = false;    // .nv.compat record attr 0x09 = 1: an 'a' target
  std::string toolkit_arch;      // from .note.nv.tkinfo "-arch sm_100f": "sm_100f"; "" if absent
  std::vector<CubinSymbol> symbols;
  std::vector<CubinKernelParams> kernel_params;  // one per kernel with a .nv.info.<kernel> section
                                                // (ptxas 13 writes one for every kernel)
};

// Fails with a message naming `label` on anything that is not a well-formed 64-bit CUDA ELF.
// Never reads outside `bytes`. Undefined symbols (.nv.reservedSmem.offset0) are left out.
Result<CubinInfo> read_cubin(std::span<const std::byte> bytes, const std::string& label);

}  // namespace kiln::image

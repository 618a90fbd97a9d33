#include "rtc/compiled_package.hpp"

#include "format/package_reader.hpp"
#include "writer/package_writer.hpp"
#include "format/target.hpp"
#include "image/cubin_reader.hpp"

#include <map>

namespace kiln::rtc {

namespace {

struct SymbolFacts {
  bool params_known = false;
  std::vector<format::ParamRecord> params;
  format::VariableKind kind = format::VariableKind::device;
  std::uint64_t size = 0;
};

format::VariableKind variable_kind(const image::CubinSymbol& symbol) {
  if (symbol.is_managed) return format::VariableKind::managed;
  if (symbol.section.rfind(".nv.constant", 0) == 0) return format::VariableKind::constant;
  return format::VariableKind::device;
}

}  // namespace

Result<std::vector<std::byte>> package_compiled(const CompiledProgram& program) {
  const std::optional<format::Target> target = format::parse_target(program.target);
  if (!target) return Error{program.unit + ": '" + program.target + "' is not a target"};
  // The runtime compiles for the device in hand: always a cubin.
  if (target->kind != format::TargetKind::sass)
    return Error{program.unit + ": run-time compiles make cubins, not " + program.target};

  // The cubin's symbols give parameters (launch checks) and variable kinds. A cubin Kiln cannot read
  // still goes to the driver, which judges images; only those facts are lost.
  std::map<std::string, SymbolFacts> facts;   // by lowered name
  if (Result<image::CubinInfo> info = image::read_cubin(program.image, program.unit + " [" + program.target + "]")) {
    for (const image::CubinSymbol& s : info->symbols) {
      SymbolFacts& f = facts[s.name];
      f.kind = variable_kind(s);
      f.size = s.size;
    }
    for (const image::CubinKernelParams& k : info->kernel_params) {
      facts[k.kernel].params_known = true;
      facts[k.kernel].params = k.params;
    }
  }

  format::PackageContents contents;
  contents.targets = {program.target};
  contents.units.push_back(format::PackageUnit{program.unit, {format::PackageImage{program.target, program.image, 0}}});
  for (const CompiledName& k : program.kernels) {
    // A symbol the cubin lacks leaves the parameters unknown; the driver's lookup then says what is missing.
    const SymbolFacts& f = facts[k.lowered];
    format::PackageKernel kernel;
    kernel.lowered_name = k.lowered;
    kernel.canonical_name = k.expression;
    kernel.unit_source = program.unit;
    if (k.expression.find('<') != std::string::npos) kernel.flags |= format::k_kernel_template;
    if (k.lowered == k.expression) kernel.flags |= format::k_kernel_extern_c;
    if (f.params_known) {
      kernel.flags |= format::k_kernel_params_known;
      kernel.params = f.params;
    }
    kernel.names = k.aliases;
    kernel.names.push_back(k.expression);
    kernel.names.push_back(k.lowered);
    contents.kernels.push_back(std::move(kernel));
  }
  for (const CompiledName& v : program.variables) {
    const SymbolFacts& f = facts[v.lowered];
    contents.variables.push_back(format::PackageVariable{v.expression, v.lowered, program.unit, f.kind, f.size});
  }
  contents.metadata = program.metadata;
  // Compression would cost each compile more than it saves a cache of single images.
  format::WriteOptions options;
  options.compress = false;
  Result<std::vector<std::byte>> written = format::write_package(contents, options);
  if (!written) return fail(written.error().status, program.unit + ": " + written.error().message);
  return written;
}

bool is_compiled_package(const std::vector<std::byte>& bytes) {
  format::PackageReader reader;
  return reader.open(bytes, "cache entry").ok() && reader.unit_count() == 1;
}

}  // namespace kiln::rtc

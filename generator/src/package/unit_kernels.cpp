#include "package/unit_kernels.hpp"

#include "format/target.hpp"
#include "image/cubin_reader.hpp"
#include "ptx/ptx_reader.hpp"

#include <set>
#include <string_view>

namespace kiln::package {

namespace {

format::VariableKind kind_of_section(std::string_view section) {
  if (section.find("constant") != std::string_view::npos) return format::VariableKind::constant;
  return format::VariableKind::device;
}

std::uint32_t parse_ptx_version(const std::string& version) {
  // "9.0" -> 90
  const std::size_t dot = version.find('.');
  if (dot == std::string::npos) return 0;
  try {
    return static_cast<std::uint32_t>(std::stoi(version.substr(0, dot)) * 10 + std::stoi(version.substr(dot + 1)));
  } catch (...) {
    return 0;
  }
}

bool same_params(const std::vector<format::ParamRecord>& a, const std::vector<format::ParamRecord>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].offset != b[i].offset || a[i].size != b[i].size) return false;
  return true;
}

struct ImageKernels {
  std::map<std::string, UnitKernel> kernels;
  std::map<std::string, UnitVariable> variables;
};

Result<ImageKernels> read_image(const std::string& label, const format::Target& target,
                                std::span<const std::byte> bytes, UnitContents& unit, const std::string& name) {
  ImageKernels found;
  if (target.kind == format::TargetKind::sass) {
    Result<image::CubinInfo> cubin = image::read_cubin(bytes, label);
    if (!cubin) return cubin.error();
    for (const image::CubinSymbol& s : cubin->symbols) {
      if (s.is_kernel) found.kernels[s.name].weak = s.is_weak;
      if (s.is_variable)
        found.variables[s.name] = UnitVariable{s.is_managed ? format::VariableKind::managed : kind_of_section(s.section),
                                               s.size};
    }
    for (const image::CubinKernelParams& k : cubin->kernel_params) {
      auto it = found.kernels.find(k.kernel);
      if (it == found.kernels.end()) continue;
      it->second.params = k.params;
      it->second.params_known = true;
    }
    // Kernels without parameters have no KPARAM_INFO records: their (empty) list is still known.
    for (auto& [kernel, info] : found.kernels) info.params_known = true;
  } else {
    std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    Result<image::PtxInfo> ptx = image::read_ptx(text, label);
    if (!ptx) return ptx.error();
    unit.ptx_versions[name] = parse_ptx_version(ptx->version);
    for (const image::PtxEntry& e : ptx->entries) {
      UnitKernel k;
      k.weak = e.is_weak;
      k.params = e.params;
      k.params_known = true;
      found.kernels[e.name] = k;
    }
    for (const image::PtxVariable& v : ptx->variable_declarations)
      found.variables[v.name] = UnitVariable{v.kind, v.size};
  }
  return found;
}

}  // namespace

Result<UnitContents> read_unit(const std::string& where, const std::vector<UnitImage>& images) {
  UnitContents unit;
  std::map<std::string, std::string> params_from;   // kernel -> the target its parameters came from
  for (const UnitImage& image : images) {
    const std::optional<format::Target> target = format::parse_target(image.target);
    if (!target) return Error{where + ": unknown target " + image.target};
    const std::string label = where + " [" + image.target + "]";
    Result<ImageKernels> found = read_image(label, *target, image.bytes, unit, image.target);
    if (!found) return found.error();
    for (const auto& [name, kernel] : found->kernels) {
      UnitKernel& known = unit.kernels[name];
      known.targets.push_back(image.target);
      known.weak = known.weak || kernel.weak;
      if (!kernel.params_known) continue;
      if (!known.params_known) {
        known.params = kernel.params;
        known.params_known = true;
        params_from[name] = image.target;
      } else if (!same_params(known.params, kernel.params)) {
        return Error{where + ": kernel " + name + " has different parameters in the " + params_from[name] +
                     " and " + image.target + " images"};
      }
    }
    // Variables: the first image that declares one gives its kind and size (cubins and PTX agree).
    for (const auto& [name, variable] : found->variables) unit.variables.try_emplace(name, variable);
  }
  return unit;
}

bool image_reads(const UnitImage& image) {
  const std::optional<format::Target> target = format::parse_target(image.target);
  UnitContents unused;
  return target && read_image(image.target, *target, image.bytes, unused, image.target).ok();
}

}  // namespace kiln::package

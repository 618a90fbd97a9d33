#include "cli/resource_notes.hpp"

#include "compile/ptxas_report.hpp"
#include "format/target.hpp"
#include "package/kernel_names.hpp"
#include "util/diagnostic.hpp"

#include <fmt/format.h>

#include <set>
#include <tuple>

namespace kiln::cli {

namespace {

std::string shape_text(const image::ThreadShape& s) {
  return s[1] == 1 && s[2] == 1 ? std::to_string(s[0]) : fmt::format("{}x{}x{}", s[0], s[1], s[2]);
}

std::string optional_text(const std::optional<std::uint32_t>& value) { return value ? std::to_string(*value) : "?"; }

// A unit's image parts are named "<unit>#<k>" (plan/image_parts.hpp): their kernels are the unit's.
std::string unit_of_part(const std::string& unit) {
  const std::size_t hash = unit.rfind('#');
  if (hash == std::string::npos || hash + 1 == unit.size()) return unit;
  if (unit.find_first_not_of("0123456789", hash + 1) != std::string::npos) return unit;
  return unit.substr(0, hash);
}

// Where a note points, and what names the unit there when the place alone does not: a variant is
// one of several units of its source. A link group is no file: its messages start "link group 'g'".
std::pair<Location, std::string> note_place(const compile::CompileJob& job) {
  if (!job.members.empty()) return {place(job.source), ""};
  const std::string unit = unit_of_part(job.unit);
  return {place(job.display_prefix + job.source), unit == job.source ? "" : "variant '" + unit + "': "};
}

}  // namespace

std::string resources_phrase(const image::KernelResources& r, const std::optional<compile::Spills>& spills) {
  std::string out = optional_text(r.registers) + " registers, " + optional_text(r.frame_size) + " bytes stack frame, ";
  if (spills)
    out += std::to_string(spills->stores) + " bytes spill stores, " + std::to_string(spills->loads) + " bytes spill loads, ";
  out += optional_text(r.stack_size) + " bytes cumulative stack, " + std::to_string(r.shared_size) +
                    " bytes shared, " + std::to_string(r.local_size) + " bytes local, " +
                    std::to_string(r.constant_size) + " bytes constant[0]";
  if (r.required_threads) out += ", exactly " + shape_text(*r.required_threads) + " threads";
  if (r.max_threads) out += ", max " + shape_text(*r.max_threads) + " threads";
  return out;
}

std::vector<std::string> resource_notes(const std::vector<compile::CompileJob>& jobs,
                                        const std::vector<compile::CompileOutput>& outputs) {
  std::vector<std::string> notes;
  std::set<std::tuple<std::string, std::string, std::string>> said;   // unit, target, kernel symbol
  for (std::size_t i = 0; i < jobs.size() && i < outputs.size(); ++i) {
    const compile::CompileJob& job = jobs[i];
    const compile::CompileOutput& out = outputs[i];
    if (!job.ptxas_verbose || !out.ok || out.image.empty()) continue;
    const std::optional<format::Target> target = format::parse_target(job.target);
    if (!target || target->kind != format::TargetKind::sass) continue;   // PTX: ptxas did not run
    const auto [where, unit_text] = note_place(job);
    const std::string prefix = job.target + ": " + unit_text;
    Result<std::vector<image::KernelResources>> kernels =
        image::read_kernel_resources(out.image, "the cubin of " + job.source);
    if (!kernels) {
      notes.push_back(diagnostic(where, "note", prefix + "cannot read its resources: " + kernels.error().message));
      continue;
    }
    for (const image::KernelResources& r : *kernels) {
      // The device runtime's kernels came compiled in libcudadevrt.a: ptxas did not build them here.
      if (!job.members.empty() && package::is_device_runtime_symbol(r.kernel)) continue;
      if (!said.emplace(unit_of_part(job.unit), job.target, r.kernel).second) continue;
      notes.push_back(diagnostic(where, "note",
                                 prefix + "'" + package::canonical_kernel_name(r.kernel) + "': " +
                                     resources_phrase(r, compile::ptxas_spills(out.log, job.target, r.kernel))));
    }
  }
  return notes;
}

}  // namespace kiln::cli

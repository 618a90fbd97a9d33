#include "cli/package_report.hpp"
#include "format/image_part_names.hpp"
#include "format/split_files.hpp"

#include "cli/string_budget.hpp"

#include <fmt/format.h>

#include <vector>

namespace kiln::cli {

using nlohmann::json;

namespace {

const char* role_name(format::SourceRole role) {
  switch (role) {
    case format::SourceRole::manifest: return "manifest";
    case format::SourceRole::source: return "source";
    case format::SourceRole::header: return "header";
    case format::SourceRole::toolkit_headers: return "toolkit headers";
  }
  return "unknown";
}

const char* variable_kind_name(format::VariableKind kind) {
  switch (kind) {
    case format::VariableKind::device: return "device";
    case format::VariableKind::constant: return "constant";
    case format::VariableKind::managed: return "managed";
  }
  return "unknown";
}

const char* unit_kind_name(format::UnitKind kind) {
  switch (kind) {
    case format::UnitKind::source: return "source";
    case format::UnitKind::link_group: return "link_group";
    case format::UnitKind::variant: return "variant";
  }
  return "unknown";
}

const char* rule_name(select::Rule rule) {
  switch (rule) {
    case select::Rule::exact_arch_specific: return "exact-arch-specific";
    case select::Rule::exact: return "exact";
    case select::Rule::lower_minor: return "lower-minor";
    case select::Rule::ptx: return "ptx";
  }
  return "unknown";
}

// The image a kernel of `unit` would load on `device`: among the unit's images, or for a kernel that
// only some hold (`kernel`), among those.
json selection(const format::PackageReader& reader, std::uint32_t unit_index, const select::DeviceProfile& device,
               std::optional<std::uint32_t> kernel = std::nullopt) {
  if (kernel && reader.kernel_in_other_file(*kernel))
    return {{"target", nullptr}, {"rule", nullptr}, {"why", "no image of this file holds it (another file of the split does)"}};
  const format::UnitView unit = reader.unit(unit_index);
  std::vector<select::Candidate> candidates;
  for (std::uint32_t i = 0; i < unit.image_count; ++i) {
    const format::ImageView image = reader.image(unit.first_image + i);
    if (kernel && !reader.kernel_in_target(*kernel, image.target)) continue;
    candidates.push_back({reader.target(image.target).target, image.ptx_version});
  }
  const select::Selection s = select::select_image(device, candidates);
  if (s.choice)
    return {{"target", candidates[s.choice->index].target.name()},
            {"rule", rule_name(s.choice->rule)},
            {"why", select::describe(candidates[s.choice->index], s.choice->rule)}};
  return {{"target", nullptr}, {"rule", nullptr},
          {"why", kernel ? "only some images hold this kernel: " + s.failure.reason : s.failure.reason}};
}

// How a kernel runs on the device asked about (kiln_coverage): the image chosen, else run-time
// compilation from carried sources, else not at all.
std::string coverage_name(const json& loads, bool carried) {
  if (!loads["target"].is_null()) return loads["target"].get<std::string>().rfind("compute_", 0) == 0 ? "ptx" : "cubin";
  return carried ? "runtime-compile" : "none";
}

// A unit's carried sources: what the runtime compiles from (CARRIED_UNITS).
template <class Text>
json carried_report(const format::PackageReader& reader, std::uint32_t record, Text& text) {
  const format::CarriedUnitView view = reader.carried_unit(record);
  json out = {{"nvrtc_version", text(view.nvrtc_version)}};
  json files = json::array(), include_dirs = json::array(), options = json::array(), link_options = json::array(),
       kernels = json::array();
  std::uint64_t raw = 0, stored = 0;
  for (std::uint32_t e = view.first_entry; e < view.first_entry + view.entry_count; ++e) {
    const format::CarriedEntryView entry = reader.carried_entry(e);
    switch (entry.kind) {
      case format::CarriedEntryKind::source:
        out["program"] = text(entry.value);
        [[fallthrough]];
      case format::CarriedEntryKind::header: {
        const format::SourceTextView t = reader.source_text(entry.text);
        files.push_back({{"path", text(entry.value)}, {"size", t.raw_size}, {"hash", fmt::format("{:016x}", t.content_hash)}});
        raw += t.raw_size;
        stored += t.stored_size;
        break;
      }
      case format::CarriedEntryKind::include_dir: include_dirs.push_back(text(entry.value)); break;
      case format::CarriedEntryKind::option: options.push_back(text(entry.value)); break;
      case format::CarriedEntryKind::link_option: link_options.push_back(text(entry.value)); break;
      case format::CarriedEntryKind::kernel_template: kernels.push_back(text(entry.value)); break;
    }
  }
  out["files"] = files;
  out["size"] = raw;
  out["stored_size"] = stored;   // texts another unit shares are counted in each
  out["include_dirs"] = include_dirs;
  out["options"] = options;
  out["link_options"] = link_options;
  out["kernel_templates"] = kernels;
  return out;
}

// Every carried text once: how much the package spends on them.
json carried_texts_report(const format::PackageReader& reader) {
  std::uint64_t raw = 0, stored = 0;
  for (std::uint32_t i = 0; i < reader.source_text_count(); ++i) {
    raw += reader.source_text(i).raw_size;
    stored += reader.source_text(i).stored_size;
  }
  return {{"count", reader.source_text_count()}, {"size", raw}, {"stored_size", stored}};
}

}  // namespace

json package_report(const format::PackageReader& reader, const std::string& path, std::uint64_t file_size,
                    const std::optional<select::DeviceProfile>& device) {
  StringBudget text(file_size);
  json report;
  report["path"] = path;
  report["format"] = fmt::format("{}.{}", reader.version_major(), reader.version_minor());
  report["size"] = file_size;
  json metadata = json::object();
  for (std::uint32_t i = 0; i < reader.metadata_count(); ++i)
    metadata[text(reader.metadata(i).key)] = text(reader.metadata(i).value);
  report["metadata"] = metadata;
  if (const std::optional<std::string_view> id = reader.metadata_value(format::k_split_id_key)) {
    json split = {{"id", text(*id)}};
    if (const auto files = reader.metadata_value(format::k_split_files_key)) {
      json companions = json::array();
      for (const std::uint16_t major : format::parse_companion_list(*files).value_or(std::vector<std::uint16_t>{}))
        companions.push_back({{"tag", format::companion_tag(major)}, {"path", format::companion_path(path, major)}});
      split["companions"] = companions;
    }
    if (const auto file = reader.metadata_value(format::k_split_file_key)) split["file"] = text(*file);
    report["split"] = split;
  }
  json targets = json::array();
  for (std::uint32_t i = 0; i < reader.target_count(); ++i) targets.push_back(std::string(reader.target(i).name));
  report["targets"] = targets;

  json units = json::array();
  for (std::uint32_t u = 0; u < reader.unit_count(); ++u) {
    const format::UnitView unit = reader.unit(u);
    json images = json::array();
    for (std::uint32_t i = 0; i < unit.image_count; ++i) {
      const format::ImageView image = reader.image(unit.first_image + i);
      const format::TargetView target = reader.target(image.target);
      images.push_back({{"target", std::string(target.name)},
                        {"kind", target.target.kind == format::TargetKind::sass ? "cubin" : "ptx"},
                        {"encoding", image.encoding == format::ImageEncoding::zstd ? "zstd" : "raw"},
                        {"stored_size", image.stored_size},
                        {"size", image.raw_size},
                        {"checksum", fmt::format("{:016x}", image.checksum)}});
      if (image.ptx_version) images.back()["ptx_isa"] = fmt::format("{}.{}", image.ptx_version / 10, image.ptx_version % 10);
    }
    json sources = json::array();
    for (const std::string_view s : reader.unit_sources(u)) sources.push_back(text(s));
    units.push_back({{"source", text(unit.source)},
                     {"kind", unit_kind_name(reader.unit_kind(u))},
                     {"sources", sources},
                     {"images", images}});
    // An image part is a variant by a part's name (docs/package-format.md, "Image parts").
    if (const auto part = reader.unit_kind(u) == format::UnitKind::variant ? format::parse_image_part_name(text(unit.source))
                                                                          : std::nullopt) {
      units.back()["kind"] = "image_part";
      units.back()["part_of"] = part->unit;
      units.back()["part"] = part->part;
    }
    if (const std::optional<std::uint32_t> c = reader.find_carried_unit(u)) units.back()["carried"] = carried_report(reader, *c, text);
  }
  report["units"] = units;
  report["carried_texts"] = carried_texts_report(reader);

  std::vector<std::vector<std::string>> names(reader.kernel_count());
  for (std::uint32_t i = 0; i < reader.name_count(); ++i)
    names[reader.name(i).kernel].push_back(text(reader.name(i).name));
  std::vector<json> selections;   // by unit, for the kernels every image of it holds
  for (std::uint32_t u = 0; device && u < reader.unit_count(); ++u) selections.push_back(selection(reader, u, *device));
  json kernels = json::array();
  for (std::uint32_t k = 0; k < reader.kernel_count(); ++k) {
    const format::KernelView kernel = reader.kernel(k);
    json params = json::array();
    for (std::uint32_t p = 0; p < kernel.param_count; ++p)
      params.push_back({{"offset", kernel.param(p).offset}, {"size", kernel.param(p).size}});
    json entry = {{"name", text(kernel.canonical_name)},
                  {"lowered_name", text(kernel.lowered_name)},
                  {"variant", kernel.variant.empty() ? json(nullptr) : json(text(kernel.variant))},
                  {"unit", text(reader.unit(kernel.unit).source)},
                  {"extern_c", (kernel.flags & format::k_kernel_extern_c) != 0},
                  {"template", (kernel.flags & format::k_kernel_template) != 0},
                  {"params", (kernel.flags & format::k_kernel_params_known) ? params : json(nullptr)},
                  {"names", names[k]}};
    json held = json::array();
    for (const std::uint32_t t : reader.kernel_targets(k)) held.push_back(std::string(reader.target(t).name));
    entry["targets"] = held;
    entry["in_every_image"] = reader.kernel_in_every_image(k);
    entry["in_other_file"] = reader.kernel_in_other_file(k);
    if (device) {
      entry["loads"] = reader.kernel_in_every_image(k) ? selections[kernel.unit] : selection(reader, kernel.unit, *device, k);
      entry["loads"]["coverage"] = coverage_name(entry["loads"], reader.find_carried_unit(kernel.unit).has_value());
    }
    kernels.push_back(entry);
  }
  report["kernels"] = kernels;

  json variables = json::array();
  for (std::uint32_t i = 0; i < reader.variable_count(); ++i) {
    const format::VariableView v = reader.variable(i);
    variables.push_back({{"name", text(v.name)},
                         {"lowered_name", text(v.lowered_name)},
                         {"kind", variable_kind_name(v.kind)},
                         {"size", v.size},
                         {"unit", text(reader.unit(v.unit).source)}});
  }
  report["variables"] = variables;

  json sources = json::array();
  for (std::uint32_t i = 0; i < reader.source_count(); ++i) {
    const format::SourceView s = reader.source(i);
    sources.push_back({{"path", text(s.path)}, {"role", role_name(s.role)},
                       {"hash", fmt::format("{:016x}", s.content_hash)}});
  }
  report["sources"] = sources;
  if (device) {
    report["device"] = {{"compute_capability", select::arch_string(device->arch)},
                        {"integrated", device->integrated},
                        {"max_ptx_isa", select::arch_string(static_cast<std::uint16_t>(device->max_ptx_version))}};
  }
  return report;
}

}  // namespace kiln::cli

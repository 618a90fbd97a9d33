// The text form of `kiln inspect`: the JSON report laid out as tables for a person.
#include "cli/package_report.hpp"
#include "cli/resource_report.hpp"

#include "format/names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace kiln::cli {

using nlohmann::json;

namespace {

std::string human_size(std::uint64_t bytes) {
  if (bytes < 10 * 1024) return fmt::format("{} B", bytes);
  if (bytes < 10 * 1024 * 1024) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024.0);
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

// Cells wider than this do not widen their column: one long name would pad every other row to its
// width (output quadratic in the package); its own row is just not aligned.
constexpr std::size_t k_max_column_width = 120;

}  // namespace

std::string text_table(const std::vector<std::vector<std::string>>& rows, const std::string& indent) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (widths.size() <= c) widths.push_back(0);
      if (row[c].size() <= k_max_column_width) widths[c] = std::max(widths[c], row[c].size());
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (std::size_t c = 0; c < row.size(); ++c)
      line += c + 1 == row.size() ? row[c] : fmt::format("{:<{}}  ", row[c], widths[c]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

namespace {

std::string params_text(const json& params) {
  if (params.is_null()) return "params unknown";
  std::string sizes;
  for (const json& p : params) sizes += (sizes.empty() ? "" : ", ") + std::to_string(p["size"].get<std::uint64_t>());
  return fmt::format("{} param{} ({})", params.size(), params.size() == 1 ? "" : "s", sizes);
}

// The lines under a unit whose sources are carried (CARRIED_UNITS).
std::string carried_text(const json& c) {
  const auto joined = [](const json& list) {
    std::string out;
    for (const json& item : list) out += (out.empty() ? "" : " ") + item.get<std::string>();
    return out.empty() ? std::string("(none)") : out;
  };
  std::string out = fmt::format("    carries its sources for run-time compiles: {} and {} headers, {} ({} stored)\n",
                                c["program"].get<std::string>(), c["files"].size() - 1,
                                human_size(c["size"].get<std::uint64_t>()), human_size(c["stored_size"].get<std::uint64_t>()));
  out += "      include dirs: " + joined(c["include_dirs"]) + "\n";
  out += "      options: " + joined(c["options"]) + (c["link_options"].empty() ? "" : "; link: " + joined(c["link_options"])) +
         " (NVRTC " + c["nvrtc_version"].get<std::string>() + ")\n";
  out += "      kernels: " + joined(c["kernel_templates"]) + "\n";
  return out;
}

// " (link group: a.cu, b.cu)", " (variant of ops.cu)" or " (image part 2 of ops.cu)" after a unit's name; nothing for a unit of
// one source file, whose name is its path.
std::string unit_origin(const json& unit) {
  if (!unit.contains("kind") || unit["kind"] == "source") return "";
  std::string sources;
  for (const json& s : unit["sources"]) sources += (sources.empty() ? "" : ", ") + s.get<std::string>();
  if (unit["kind"] == "image_part")
    return fmt::format(" (image part {} of {})", unit["part"].get<std::uint64_t>(), unit["part_of"].get<std::string>());
  return unit["kind"] == "variant" ? " (variant of " + sources + ")" : " (link group: " + sources + ")";
}

}  // namespace

std::string render_report(const json& r) {
  const json& meta = r["metadata"];
  auto meta_value = [&](const char* key) { return meta.contains(key) ? meta[key].get<std::string>() : "?"; };
  std::string out = fmt::format("{}: Kiln package format {}, {}\n", r["path"].get<std::string>(),
                                r["format"].get<std::string>(), human_size(r["size"].get<std::uint64_t>()));
  out += fmt::format("  built by kiln {} with NVRTC {}, nvJitLink {}\n", meta_value("generator.version"),
                     meta_value("nvrtc.version"), meta_value("nvjitlink.version"));
  if (meta.contains("options") && !meta["options"].get<std::string>().empty())
    out += "  options: " + meta["options"].get<std::string>() + "\n";
  std::string targets;
  for (const json& t : r["targets"]) targets += (targets.empty() ? "" : " ") + t.get<std::string>();
  out += "  targets: " + (targets.empty() ? std::string("none") : targets) + "\n";
  if (r.contains("split")) {
    const json& split = r["split"];
    if (split.contains("companions")) {
      std::string files;
      for (const json& c : split["companions"]) files += (files.empty() ? "" : ", ") + c["path"].get<std::string>();
      out += "  split: the index and PTX; cubins in " + (files.empty() ? std::string("no other file") : files) + "\n";
      if (split.contains("device_file")) {
        const json& file = split["device_file"];
        out += "  this device's cubins: " + file["path"].get<std::string>() +
               (!file["installed"].get<bool>() ? " (not installed: its kernels load as the PTX allows)"
                : file["problem"].is_null()    ? ""
                                               : " (not used: " + file["problem"].get<std::string>() + ")") +
               "\n";
      }
    } else if (split.contains("file")) {
      out += "  split: the " + split["file"].get<std::string>() + " cubins of a split package (split.id " +
             split["id"].get<std::string>() + ")\n";
    }
  }
  if (r.contains("device"))
    out += fmt::format("  device: compute capability {}{}, driver PTX ISA up to {}\n",
                       r["device"]["compute_capability"].get<std::string>(),
                       r["device"]["integrated"].get<bool>() ? " (integrated)" : "",
                       r["device"]["max_ptx_isa"].get<std::string>());

  out += fmt::format("\nunits ({})\n", r["units"].size());
  for (const json& unit : r["units"]) {
    std::uint64_t stored = 0, raw = 0;
    std::vector<std::vector<std::string>> rows;
    for (const json& image : unit["images"]) {
      stored += image["stored_size"].get<std::uint64_t>();
      raw += image["size"].get<std::uint64_t>();
      rows.push_back({image["target"].get<std::string>(), image["kind"].get<std::string>(),
                      human_size(image["size"].get<std::uint64_t>()),
                      image["encoding"] == "zstd" ? "zstd " + human_size(image["stored_size"].get<std::uint64_t>()) : "raw"});
    }
    out += fmt::format("  {}{}: {} images, {} stored ({} decoded)\n", unit["source"].get<std::string>(),
                       unit_origin(unit), unit["images"].size(), human_size(stored), human_size(raw));
    out += text_table(rows, "    ");
    if (unit.contains("carried")) out += carried_text(unit["carried"]);
  }
  if (r.contains("carried_texts") && r["carried_texts"]["count"].get<std::uint64_t>() > 0) {
    const json& t = r["carried_texts"];
    out += fmt::format("  carried texts: {} files, {} stored ({} decoded), each stored once\n",
                       t["count"].get<std::uint64_t>(), human_size(t["stored_size"].get<std::uint64_t>()),
                       human_size(t["size"].get<std::uint64_t>()));
  }

  out += fmt::format("\nkernels ({})\n", r["kernels"].size());
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> aliases;   // printed under each kernel's row, outside the table's columns
  std::vector<std::string> held;      // likewise: the targets that hold a kernel not every image holds
  for (const json& k : r["kernels"]) {
    std::vector<std::string> row = {k["name"].get<std::string>(), k["unit"].get<std::string>(), params_text(k["params"])};
    if (k.contains("loads")) {
      const json& loads = k["loads"];
      if (!loads["target"].is_null()) {
        row.push_back("loads " + loads["why"].get<std::string>() +
                      (loads.contains("file") ? " from " + loads["file"].get<std::string>() : ""));
      } else if (loads["coverage"] == "runtime-compile") {
        row.push_back("compiled at run time from carried sources (no image runs on this device)");
      } else {
        row.push_back("cannot run: no image: " + loads["why"].get<std::string>());
      }
    }
    rows.push_back(row);
    const std::string shown = format::normalize_name(k["name"].get<std::string>());
    std::string also;
    for (const json& n : k["names"])
      if (n.get<std::string>() != shown) also += (also.empty() ? "" : ", ") + n.get<std::string>();
    aliases.push_back(also);
    std::string only;
    if (k.contains("in_every_image") && !k["in_every_image"].get<bool>())
      for (const json& t : k["targets"]) only += (only.empty() ? "" : " ") + t.get<std::string>();
    if (k.value("in_other_file", false)) only = "another file of the split";
    held.push_back(only);
  }
  const std::string kernel_table = text_table(rows);
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < aliases.size(); ++i) {
    const std::size_t line_end = kernel_table.find('\n', line_start) + 1;
    out += kernel_table.substr(line_start, line_end - line_start);
    if (!aliases[i].empty()) out += "      also: " + aliases[i] + "\n";
    if (!held[i].empty()) out += "      only in: " + held[i] + "\n";
    line_start = line_end;
  }
  out += render_kernel_resources(r);

  if (!r["variables"].empty()) {
    out += fmt::format("\nvariables ({})\n", r["variables"].size());
    rows.clear();
    for (const json& v : r["variables"])
      rows.push_back({v["name"].get<std::string>(), v["kind"].get<std::string>(),
                      human_size(v["size"].get<std::uint64_t>()), v["unit"].get<std::string>()});
    out += text_table(rows);
  }

  out += fmt::format("\nsources ({})\n", r["sources"].size());
  rows.clear();
  for (const json& s : r["sources"])
    rows.push_back({s["path"].get<std::string>(), s["role"].get<std::string>(), s["hash"].get<std::string>()});
  out += text_table(rows);
  return out;
}

}  // namespace kiln::cli

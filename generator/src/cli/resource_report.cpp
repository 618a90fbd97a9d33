#include "cli/resource_report.hpp"

#include "cli/package_report.hpp"
#include "image/kernel_resources.hpp"

#include <fmt/format.h>

#include <new>
#include <unordered_map>
#include <vector>

namespace kiln::cli {

using nlohmann::json;

namespace {

json optional_number(const std::optional<std::uint32_t>& value) { return value ? json(*value) : json(nullptr); }

json optional_shape(const std::optional<image::ThreadShape>& shape) {
  return shape ? json::array({(*shape)[0], (*shape)[1], (*shape)[2]}) : json(nullptr);
}

json resources_json(const std::string& target, const image::KernelResources& r) {
  return {{"target", target},
          {"registers", optional_number(r.registers)},
          {"stack", optional_number(r.stack_size)},
          {"frame", optional_number(r.frame_size)},
          {"shared", r.shared_size},
          {"local", r.local_size},
          {"constant", r.constant_size},
          {"max_threads", optional_shape(r.max_threads)},
          {"required_threads", optional_shape(r.required_threads)}};
}

// The resources of every kernel in one cubin, or why they cannot be read.
Result<std::vector<image::KernelResources>> cubin_resources(const format::PackageReader& reader, std::uint32_t index,
                                                            const std::string& label) {
  std::vector<std::byte> scratch;
  try {
    Result<std::span<const std::byte>> bytes = reader.image_bytes(index, scratch);
    if (!bytes) return Error{error_text(bytes.error())};
    return image::read_kernel_resources(*bytes, label);
  } catch (const std::bad_alloc&) {
    // The reader bounds raw_size (docs/package-format.md, Limits); this machine may still lack it.
    return Error{label + ": not enough memory to decode its " + std::to_string(reader.image(index).raw_size) + " bytes"};
  }
}

std::string number_text(const json& value) { return value.is_null() ? "?" : std::to_string(value.get<std::uint64_t>()); }

// "max 256", "max 32x4x1", "exactly 64x2x1", "-" when the kernel sets no limit.
std::string threads_text(const json& r) {
  const auto shape = [](const json& s) {
    const auto x = s[0].get<std::uint32_t>(), y = s[1].get<std::uint32_t>(), z = s[2].get<std::uint32_t>();
    return y == 1 && z == 1 ? std::to_string(x) : fmt::format("{}x{}x{}", x, y, z);
  };
  std::string out;
  if (!r["required_threads"].is_null()) out = "exactly " + shape(r["required_threads"]);
  if (!r["max_threads"].is_null()) out += (out.empty() ? "max " : ", max ") + shape(r["max_threads"]);
  return out.empty() ? "-" : out;
}

}  // namespace

void add_kernel_resources(const format::PackageReader& reader, json& report) {
  std::vector<std::vector<std::uint32_t>> kernels_of_unit(reader.unit_count());
  for (std::uint32_t k = 0; k < reader.kernel_count(); ++k) {
    report["kernels"][std::size_t{k}]["resources"] = json::array();
    kernels_of_unit[reader.kernel(k).unit].push_back(k);
  }
  for (std::uint32_t u = 0; u < reader.unit_count(); ++u) {
    const format::UnitView unit = reader.unit(u);
    for (std::uint32_t i = 0; i < unit.image_count; ++i) {
      const format::ImageView image = reader.image(unit.first_image + i);
      const format::TargetView target = reader.target(image.target);
      if (target.target.kind != format::TargetKind::sass) continue;  // PTX: the driver decides at load time
      const std::string name(target.name);
      Result<std::vector<image::KernelResources>> read = cubin_resources(reader, image.index, std::string(unit.source) + " [" + name + "]");
      if (!read) {
        report["units"][std::size_t{u}]["images"][std::size_t{i}]["resources_problem"] = read.error().message;
        continue;
      }
      std::unordered_map<std::string_view, const image::KernelResources*> by_symbol;
      for (const image::KernelResources& r : *read) by_symbol.emplace(r.kernel, &r);
      for (const std::uint32_t k : kernels_of_unit[u]) {
        if (!reader.kernel_in_target(k, image.target)) continue;
        const auto found = by_symbol.find(reader.kernel(k).lowered_name);
        if (found != by_symbol.end()) report["kernels"][std::size_t{k}]["resources"].push_back(resources_json(name, *found->second));
      }
    }
  }
}

std::string render_kernel_resources(const json& report) {
  std::string out;
  for (const json& unit : report["units"])
    for (const json& image : unit["images"])
      if (image.contains("resources_problem"))
        out += "  " + image["target"].get<std::string>() + ": cannot read its resources: " +
               image["resources_problem"].get<std::string>() + "\n";
  for (const json& target : report["targets"]) {
    std::vector<std::vector<std::string>> rows;
    for (const json& k : report["kernels"])
      for (const json& r : k.value("resources", json::array()))
        if (r["target"] == target)
          rows.push_back({k["name"].get<std::string>(), number_text(r["registers"]), number_text(r["stack"]),
                          std::to_string(r["shared"].get<std::uint64_t>()), std::to_string(r["local"].get<std::uint64_t>()),
                          std::to_string(r["constant"].get<std::uint64_t>()), threads_text(r)});
    if (rows.empty()) continue;
    rows.insert(rows.begin(), {"kernel", "registers", "stack", "shared", "local", "constant", "threads"});
    out += "  " + target.get<std::string>() + "\n" + text_table(rows, "    ");
  }
  if (out.empty()) return out;
  return "\nresources (bytes; registers, stack and local per thread, shared per block; spills are not recorded in a cubin)\n" + out;
}

}  // namespace kiln::cli

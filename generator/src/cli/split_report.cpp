#include "cli/split_report.hpp"

#include "cli/package_file.hpp"
#include "cli/package_report.hpp"
#include "format/split_files.hpp"

#include <filesystem>

namespace kiln::cli {

using nlohmann::json;

void add_companion_loads(json& report, const select::DeviceProfile& device) {
  if (!report.contains("split") || !report["split"].contains("companions")) return;
  json& split = report["split"];
  const std::string tag = format::companion_tag(static_cast<std::uint16_t>(device.arch / 10));
  std::string path;
  for (const json& companion : split["companions"])
    if (companion["tag"] == tag) path = companion["path"].get<std::string>();
  if (path.empty()) return;
  json& file = split["device_file"] = {{"path", path}, {"installed", false}, {"problem", nullptr}};
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return;
  file["installed"] = true;
  Result<std::unique_ptr<PackageFile>> opened = open_package_file(path);
  if (!opened) {
    file["problem"] = opened.error().message;
    return;
  }
  const format::PackageReader& reader = (*opened)->reader;
  const json companion = package_report(reader, path, (*opened)->bytes.size(), device);
  const auto id = reader.metadata_value(format::k_split_id_key);
  if (!id || *id != split["id"].get<std::string>() || companion["kernels"].size() != report["kernels"].size()) {
    file["problem"] = path + " is not from the same split as this file";
    return;
  }
  for (std::size_t k = 0; k < companion["kernels"].size(); ++k) {
    const json& loads = companion["kernels"][k]["loads"];
    if (loads["target"].is_null()) continue;
    json& kernel = report["kernels"][k];
    kernel["loads"] = loads;
    kernel["loads"]["file"] = path;
    kernel["loads"]["coverage"] = "cubin";
  }
}

}  // namespace kiln::cli

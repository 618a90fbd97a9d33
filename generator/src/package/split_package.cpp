#include "package/split_package.hpp"

#include "format/split_files.hpp"
#include "format/target.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace kiln::package {

namespace {

// Which file holds a target's images: PTX stays in the main file (0); a cubin goes to its major's
// companion (sm_90a -> 9, sm_100f -> 10: a cubin runs only on devices of its own major).
std::uint16_t file_of(const format::Target& target) {
  return target.kind == format::TargetKind::ptx ? 0 : static_cast<std::uint16_t>(target.arch / 10);
}

format::PackageContents file_contents(const format::PackageContents& package, std::uint16_t major,
                                      const std::set<std::string>& targets) {
  format::PackageContents out;
  out.targets.assign(targets.begin(), targets.end());
  for (const format::PackageUnit& unit : package.units) {
    format::PackageUnit copy{unit.source, {}, unit.sources, unit.variant};
    for (const format::PackageImage& image : unit.images) {
      if (targets.contains(image.target)) copy.images.push_back(image);
    }
    out.units.push_back(std::move(copy));
  }
  for (const format::PackageKernel& kernel : package.kernels) {
    format::PackageKernel copy = kernel;
    if (!kernel.targets.empty()) {
      copy.targets.clear();
      for (const std::string& target : kernel.targets) {
        if (targets.contains(target)) copy.targets.push_back(target);
      }
      if (copy.targets.empty()) copy.flags |= format::k_kernel_in_other_file;
    }
    out.kernels.push_back(std::move(copy));
  }
  out.variables = package.variables;
  out.sources = package.sources;
  out.metadata = package.metadata;
  // Run-time compilation needs the main file only; a companion is images.
  if (major == 0) out.carried = package.carried;
  return out;
}

}  // namespace

Result<std::vector<SplitFile>> split_package(const format::PackageContents& package, const std::string& split_id) {
  for (const auto& [key, value] : package.metadata) {
    if (key == format::k_split_id_key) {
      return Error{"it is already a file of a split package (split.id " + value + "); split the package it came from"};
    }
  }
  std::map<std::uint16_t, std::set<std::string>> targets_of;   // by file; 0 is the main file
  targets_of[0];
  for (const std::string& text : package.targets) {
    const std::optional<format::Target> target = format::parse_target(text);
    if (!target) return Error{"target '" + text + "' is not a target string"};
    targets_of[file_of(*target)].insert(text);
  }
  std::string companions;
  for (const auto& [major, targets] : targets_of) {
    if (major != 0) companions += (companions.empty() ? "" : " ") + format::companion_tag(major);
  }
  std::vector<SplitFile> files;
  for (const auto& [major, targets] : targets_of) {
    SplitFile file{major, file_contents(package, major, targets)};
    file.contents.metadata.emplace_back(std::string(format::k_split_id_key), split_id);
    if (major == 0) {
      file.contents.metadata.emplace_back(std::string(format::k_split_files_key), companions);
    } else {
      file.contents.metadata.emplace_back(std::string(format::k_split_file_key), format::companion_tag(major));
    }
    files.push_back(std::move(file));
  }
  return files;
}

}  // namespace kiln::package

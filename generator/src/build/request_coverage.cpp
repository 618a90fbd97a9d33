#include "build/request_coverage.hpp"

#include "format/names.hpp"
#include "plan/listed_names.hpp"
#include "util/diagnostic.hpp"

#include <set>

namespace kiln::build {

namespace {

// At most this many names are listed; the count says how many more there are.
constexpr std::size_t k_listed = 10;

}  // namespace

std::vector<AskedName> asked_kernel_names(const manifest::Manifest& manifest,
                                          const std::vector<plan::ScannedFile>& kernel_sources,
                                          const std::vector<plan::ScannedFile>& host_sources,
                                          const std::string& display_prefix) {
  std::vector<AskedName> asked;
  for (std::size_t i = 0; i < manifest.instantiations.size(); ++i) {
    const manifest::Position at =
        i < manifest.instantiation_positions.size() ? manifest.instantiation_positions[i] : manifest::Position{};
    const compile::Origin origin =
        plan::listed_origin(manifest, plan::NameList::instantiate, nullptr, manifest.instantiations[i], at);
    asked.push_back({manifest.instantiations[i], plan::shown_origin(origin, display_prefix)});
  }
  for (const manifest::SourceEntry& source : manifest.sources)
    for (std::size_t i = 0; i < source.instantiations.size(); ++i) {
      if (!manifest.cmake_call) {
        Location where = place(manifest.path.string());
        if (i < source.instantiation_positions.size()) {
          where.line = source.instantiation_positions[i].line;
          where.column = source.instantiation_positions[i].column;
        }
        asked.push_back({source.instantiations[i], where});
        continue;
      }
      const compile::Origin origin = plan::listed_origin(manifest, plan::NameList::source_instantiate, &source,
                                                         source.instantiations[i], {});
      asked.push_back({source.instantiations[i], plan::shown_origin(origin, display_prefix)});
    }
  for (const auto* files : {&kernel_sources, &host_sources})
    for (const plan::ScannedFile& file : *files)
      for (const scan::RuntimeRequest& r : file.result.requests)
        if (r.what == scan::RuntimeRequest::What::kernel)
          asked.push_back({r.name, plan::shown_at(r.location, display_prefix)});
  return asked;
}

Status answers_every_name(const std::vector<AskedName>& asked, const format::PackageContents& contents) {
  // Every name the runtime finds a kernel by (format/names.hpp: whitespace aside).
  std::set<std::string> answered;
  for (const format::PackageKernel& k : contents.kernels) {
    answered.insert(format::normalize_name(k.lowered_name));
    answered.insert(format::normalize_name(k.canonical_name));
    for (const std::string& name : k.names) answered.insert(format::normalize_name(name));
  }
  std::set<std::string> distinct, missing;
  std::vector<const AskedName*> listed;
  for (const AskedName& a : asked) {
    const std::string key = format::normalize_name(a.name);
    distinct.insert(key);
    if (answered.count(key) || !missing.insert(key).second) continue;
    listed.push_back(&a);
  }
  if (missing.empty()) return Ok{};
  std::string text = "the package holds " + std::to_string(contents.kernels.size()) +
                     (contents.kernels.size() == 1 ? " kernel" : " kernels") + " and answers " +
                     std::to_string(distinct.size() - missing.size()) + " of the " + std::to_string(distinct.size()) +
                     " kernel names asked for; not in it: ";
  for (std::size_t i = 0; i < listed.size() && i < k_listed; ++i)
    text += (i ? ", '" : "'") + listed[i]->name + "' (" + position_text(listed[i]->where) + ")";
  if (listed.size() > k_listed) text += " and " + std::to_string(listed.size() - k_listed) + " more";
  return fail(KILN_STATUS_KERNEL_NOT_FOUND, std::move(text));
}

}  // namespace kiln::build

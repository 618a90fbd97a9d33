#include "build/scan_scope.hpp"

#include "plan/text_discovery.hpp"

#include <algorithm>
#include <optional>

namespace kiln::build {

std::set<std::string> left_to_the_image(const manifest::Manifest& manifest, plan::ProjectText& project, bool strict,
                                        bool extra_sources) {
  std::set<std::string> decided, asked;
  for (const manifest::SourceEntry& source : manifest.sources) {
    const std::optional<plan::UnitTextFacts> unit = project.facts_of(source);
    if (unit && plan::image_decides(manifest, source, *unit, strict, extra_sources))
      decided.insert(source.path);
    else
      asked.insert(source.path);
  }
  // A source listed twice (two variants) is left unread only if no entry of it asks.
  for (const std::string& path : asked) decided.erase(path);
  return decided;
}

int slots_beside_the_scan(const manifest::Manifest& manifest, const std::set<std::string>& unread,
                          std::size_t extra_hosts, int jobs, bool jobserver) {
  if (jobserver) return 0;
  std::set<std::string> parsed(manifest.host_sources.begin(), manifest.host_sources.end());
  for (const manifest::SourceEntry& source : manifest.sources)
    if (!unread.count(source.path)) parsed.insert(source.path);
  const std::size_t to_parse = parsed.size() + extra_hosts;
  if (to_parse == 0) return 0;
  if (jobs == 1) return 0;
  return jobs - static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(jobs - 1), to_parse));
}

}  // namespace kiln::build

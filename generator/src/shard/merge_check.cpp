#include "shard/merge_check.hpp"

#include <algorithm>
#include <optional>

namespace kiln::shard {

namespace {

// The first part whose `field` differs from the first part's, as an error naming both.
template <typename Field>
std::optional<Error> differing(const std::vector<NamedPart>& parts, Field field, const std::string& what) {
  for (const NamedPart& p : parts)
    if (field(p.part) != field(parts.front().part))
      return Error{"cannot merge " + parts.front().file + " and " + p.file + ": " + what};
  return std::nullopt;
}

}  // namespace

Result<std::vector<NamedPart>> check_parts(std::vector<NamedPart> parts) {
  if (parts.empty()) return Error{"no parts to merge"};
  if (auto e = differing(parts, [](const Part& p) { return p.count; }, "they are shards of builds split " +
                                                                          std::string("in different numbers of shards")))
    return *e;
  if (auto e = differing(parts, [](const Part& p) { return p.kiln_version; }, "they were built by different kiln versions"))
    return *e;
  if (auto e = differing(parts, [](const Part& p) { return p.toolchain; },
                         "they were built with different toolchains (CUDA, NVRTC or nvJitLink versions)"))
    return *e;
  if (auto e = differing(parts, [](const Part& p) { return p.fingerprint; },
                         "they are shards of different builds (another manifest, sources, options or targets)"))
    return *e;
  // Shards that cut the jobs differently (one given compile times the others were not) would leave
  // jobs to no shard, or to two.
  for (const NamedPart& p : parts)
    if (p.part.cut != parts.front().part.cut)
      return Error{"cannot merge " + parts.front().file + " and " + p.file + ": their shards were cut differently (" +
                   parts.front().file + " by " + parts.front().part.cut_by + ", " + p.file + " by " + p.part.cut_by +
                   "); build every shard with the same --shard-times file, or none"};
  std::sort(parts.begin(), parts.end(), [](const NamedPart& a, const NamedPart& b) { return a.part.index < b.part.index; });
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (parts[i].part.index == parts[i - 1].part.index)
      return Error{"cannot merge " + parts[i - 1].file + " and " + parts[i].file + ": both are shard " +
                   std::to_string(parts[i].part.index) + " of " + std::to_string(parts[i].part.count)};
  const std::uint64_t count = parts.front().part.count;
  std::string missing;
  std::size_t next = 0;
  for (std::uint64_t index = 1; index <= count; ++index) {
    if (next < parts.size() && parts[next].part.index == index) {
      ++next;
      continue;
    }
    missing += (missing.empty() ? "" : ", ") + std::to_string(index);
  }
  if (!missing.empty())
    return Error{"missing " + std::string(missing.find(',') == std::string::npos ? "shard " : "shards ") + missing +
                 " of " + std::to_string(count) + " (given: " + std::to_string(parts.size()) +
                 "); build it with kiln build --shard I/" + std::to_string(count)};
  return parts;
}

Status check_plan(const std::vector<NamedPart>& parts, const std::string& toolchain, const std::string& fingerprint,
                  const std::string& manifest_file) {
  const NamedPart& first = parts.front();
  if (first.part.toolchain != toolchain)
    return Error{"the parts were built with another toolchain than this kiln uses (" + first.file +
                 "); merge where they were built, or build them again"};
  if (first.part.fingerprint != fingerprint)
    return Error{"the parts (" + first.file + ", ...) were built from another manifest, sources, options or targets than " +
                 manifest_file + " here"};
  return Ok{};
}

}  // namespace kiln::shard

// `kiln harvest`'s reading half: the names the run-time fallback compiled (harvest records in the
// given caches, store/harvest_record.hpp) that a manifest's sources do not list yet, merged across
// caches and targets, in a fixed order.
#pragma once

#include "manifest/manifest.hpp"

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace kiln::harvest {

// One cache and the targets a name was compiled for there.
struct Origin {
  std::string cache;                   // as given on the command line
  std::vector<std::string> targets;    // sorted, unique
};

struct HarvestedName {
  std::string source;                  // the manifest's [[source]] path
  std::string expression;              // as the runtime resolved it: "ops::scale<double>"
  std::vector<Origin> origins;         // in the order the caches were given
};

struct Harvest {
  std::vector<HarvestedName> names;    // sorted by source, then expression
  std::vector<std::string> warnings;   // damaged or implausible records, one each, naming the file
  std::size_t other_package = 0;       // records of a package another manifest names
  std::size_t other_source = 0;        // records of a source the manifest has no [[source]] for
  std::size_t listed = 0;              // records of names the manifest lists already
};

// Reads every record of `caches` and keeps those of `manifest`'s sources.
Harvest harvest(const manifest::Manifest& manifest, const std::vector<std::string>& caches);

// Whether `expression` is what the runtime resolves `asked` to (rtc::candidates_for): the same name,
// or it qualified by a namespace, with the same template arguments.
bool resolves_to(std::string_view asked, std::string_view expression);

}  // namespace kiln::harvest

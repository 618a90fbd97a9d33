// What a merge checks of its parts before it reads an entry: one shard count, every shard from 1 to
// N exactly once, one kiln version, toolchain, plan fingerprint and cut (which shard compiles each
// job); then that this machine's plan is theirs. Each error names the part files concerned.
#pragma once

#include "shard/part_file.hpp"
#include "util/result.hpp"

#include <string>
#include <vector>

namespace kiln::shard {

struct NamedPart {
  std::string file;   // as given on the command line
  Part part;
};

// The parts in shard order, when they make one whole build.
Result<std::vector<NamedPart>> check_parts(std::vector<NamedPart> parts);

// Whether the parts (checked above) are of the plan this merge made here.
Status check_plan(const std::vector<NamedPart>& parts, const std::string& toolchain, const std::string& fingerprint,
                  const std::string& manifest_file);

}  // namespace kiln::shard

// What the scan must read, and what may start before it ends. A kernel source whose unit's text shows
// host code (or, device-only, no template), and that nothing asks for names, is left to its compiler's
// image (plan/text_discovery.hpp): the scan does not parse it. The job slots the parses leave compile while the scan runs
// (speculation.hpp).
#pragma once

#include "manifest/manifest.hpp"
#include "plan/unit_text.hpp"

#include <cstddef>
#include <set>
#include <string>

namespace kiln::build {

// The kernel sources (as the manifest names them) the scan may leave unread: every entry of theirs
// lets the image decide. `strict` and `extra_sources` (host or Python sources given beside the
// manifest's) ask for names, as the manifest's own host sources do. A source that cannot be read is
// scanned (the scan says why). `project` walks the manifest's headers (the build's other questions
// of the sources' text take the same walk, so that no header is read twice).
std::set<std::string> left_to_the_image(const manifest::Manifest& manifest, plan::ProjectText& project, bool strict,
                                        bool extra_sources);

// How many of the build's `jobs` slots compile while the scan runs: one slot per file to parse,
// keeping one at least for the compiles; none with one slot. None when nothing is left to parse: the
// scan then takes no time, and the compiles start at once without the detour (a process, a store
// written and read back). None under make's jobserver: the scan and the early compiles would each
// run one worker on the build's own token, one more than make lent. `extra_hosts` counts the host
// sources given beside the manifest's.
int slots_beside_the_scan(const manifest::Manifest& manifest, const std::set<std::string>& unread,
                          std::size_t extra_hosts, int jobs, bool jobserver);

}  // namespace kiln::build

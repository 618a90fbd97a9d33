// How many compiles and scans kiln build runs at once: -j, else $KILN_JOBS, caps them; make's
// jobserver, when MAKEFLAGS offers one, lends the slots, so without a cap it alone decides; without
// either, one per core.
#pragma once

#include "util/result.hpp"

#include <string>

namespace kiln::cli {

struct JobLimit {
  int jobs = 1;           // workers at most (1: compile in this process)
  std::string source;     // what set it, for -v: "-j", "KILN_JOBS", "make's jobserver", "cores"
};

// `flag` is -j (0 when not given), `kiln_jobs` the variable (nullptr when unset). An error names a
// KILN_JOBS that is not a number from 1 to 1024.
Result<JobLimit> job_limit(int flag, const char* kiln_jobs, bool jobserver, unsigned cores);

// What -v prints: "jobs: 4 (-j)", "jobs: as make's jobserver allows, at most 2 (KILN_JOBS)".
std::string describe(const JobLimit& limit, bool jobserver);

}  // namespace kiln::cli

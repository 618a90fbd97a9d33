#include "cli/job_limit.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace kiln::cli {

namespace {

constexpr int k_max_jobs = 1024;   // as -j's range

}  // namespace

Result<JobLimit> job_limit(int flag, const char* kiln_jobs, bool jobserver, unsigned cores) {
  if (flag > 0) return JobLimit{flag, "-j"};
  if (kiln_jobs && *kiln_jobs) {
    int value = 0;
    const char* end = kiln_jobs + std::strlen(kiln_jobs);
    const auto [at, ec] = std::from_chars(kiln_jobs, end, value);
    if (ec != std::errc{} || at != end || value < 1 || value > k_max_jobs)
      return Error{"KILN_JOBS=" + std::string(kiln_jobs) + " is not a number of jobs from 1 to 1024"};
    return JobLimit{value, "KILN_JOBS"};
  }
  if (jobserver) return JobLimit{k_max_jobs, "make's jobserver"};
  return JobLimit{static_cast<int>(std::clamp(cores, 1u, static_cast<unsigned>(k_max_jobs))), "cores"};
}

std::string describe(const JobLimit& limit, bool jobserver) {
  const std::string count = std::to_string(limit.jobs) + " (" + limit.source + ")";
  if (!jobserver) return "jobs: " + count;
  if (limit.source == "make's jobserver") return "jobs: as make's jobserver allows";
  return "jobs: as make's jobserver allows, at most " + count;
}

}  // namespace kiln::cli

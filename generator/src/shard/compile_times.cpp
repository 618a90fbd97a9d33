#include "shard/compile_times.hpp"

#include "util/file_io.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>

namespace kiln::shard {

namespace {

constexpr std::string_view k_header = "kiln compile times 1";

}  // namespace

CompileTimes measured_times(const plan::BuildPlan& plan, const std::vector<compile::CompileOutput>& outputs) {
  CompileTimes times;
  for (std::size_t i = 0; i < plan.jobs.size() && i < outputs.size(); ++i) {
    const compile::CompileOutput& out = outputs[i];
    const std::uint64_t us = compile::whole_microseconds(out.from_cache ? out.recorded_seconds : out.seconds);
    if (us > 0) times[{plan.jobs[i].unit, plan.jobs[i].target}] = us;
  }
  return times;
}

std::string format_times(const CompileTimes& times) {
  std::string text = std::string(k_header) + "\n# microseconds target unit: kiln build --shard I/N --shard-times FILE cuts by them\n";
  for (const auto& [job, us] : times) {
    // A name that would break the line is left out: that job is estimated.
    if (job.first.find_first_of("\r\n") != std::string::npos || job.second.find_first_of(" \t\r\n") != std::string::npos ||
        job.first.empty() || job.second.empty())
      continue;
    text += std::to_string(us) + " " + job.second + " " + job.first + "\n";
  }
  return text;
}

Result<CompileTimes> parse_times(const std::string& text) {
  CompileTimes times;
  std::size_t line_number = 0;
  std::size_t start = 0;
  bool header = false;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string where = "line " + std::to_string(line_number) + ": ";
    if (!header) {
      if (line != k_header)
        return Error{where + "not a file of compile times (it starts with '" + std::string(k_header) +
                     "'; kiln build --write-times FILE writes one)"};
      header = true;
      continue;
    }
    if (line.empty() || line.front() == '#') continue;
    const std::size_t first = line.find(' ');
    const std::size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
    std::uint64_t us = 0;
    const auto [at, ec] = std::from_chars(line.data(), line.data() + std::min(first, line.size()), us);
    if (second == std::string_view::npos || ec != std::errc() || at != line.data() + first || first == 0 ||
        second == first + 1 || second + 1 >= line.size())
      return Error{where + "not '<microseconds> <target> <unit>': " + std::string(line)};
    std::pair<std::string, std::string> job{std::string(line.substr(second + 1)),
                                            std::string(line.substr(first + 1, second - first - 1))};
    if (!times.emplace(job, us).second)
      return Error{where + job.first + " for " + job.second + " is listed twice"};
  }
  if (!header) return Error{"line 1: not a file of compile times (it is empty)"};
  return times;
}

Result<CompileTimes> read_times(const std::filesystem::path& path) {
  Result<std::vector<std::byte>> bytes = read_binary_file(path);
  if (!bytes) return Error{"cannot read the compile times " + path.string() + ": " + bytes.error().message};
  Result<CompileTimes> times = parse_times(std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
  if (!times) return Error{path.string() + ": " + times.error().message};
  return times;
}

TimedCost timed_cost(const plan::BuildPlan& plan, const CompileTimes& times) {
  TimedCost result;
  std::uint64_t recorded_micros = 0, recorded_bytes = 0;
  for (const compile::CompileJob& job : plan.jobs) {
    const auto it = times.find({job.unit, job.target});
    if (it == times.end()) {
      ++result.estimated;
      continue;
    }
    ++result.recorded;
    recorded_micros += it->second;
    recorded_bytes += estimated_cost(job);
  }
  // Estimated bytes to microseconds, as the timed jobs of this plan convert: a fraction of integers,
  // multiplied in two steps (whole microseconds per byte, then the remainder) so as not to overflow.
  const std::uint64_t numerator = recorded_bytes == 0 ? k_default_micros_per_byte : recorded_micros;
  const std::uint64_t denominator = recorded_bytes == 0 ? 1 : recorded_bytes;
  result.cost = [times, numerator, denominator](const compile::CompileJob& job) -> std::uint64_t {
    if (const auto it = times.find({job.unit, job.target}); it != times.end()) return it->second;
    const std::uint64_t bytes = estimated_cost(job);
    const std::uint64_t scaled = bytes * (numerator / denominator) + bytes * (numerator % denominator) / denominator;
    return std::max<std::uint64_t>(scaled, 1);
  };
  return result;
}

}  // namespace kiln::shard

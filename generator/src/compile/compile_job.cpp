#include "compile/compile_job.hpp"

#include "util/byte_stream.hpp"
#include "util/diagnostic.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace kiln::compile {

using Writer = ByteWriter;
using Reader = ByteReader;

std::uint64_t whole_microseconds(double seconds) {
  // Rounded, not truncated: 2.045428 s is 2045427.9999999998 us as a double.
  return seconds > 0 ? static_cast<std::uint64_t>(std::llround(seconds * 1e6)) : 0;
}

Location job_location(const CompileJob& job) {
  Location where = place(job.display_prefix + job.source);
  where.target = job.target;
  return where;
}

void add_failure(std::string& log, const Location& where, std::string_view message) {
  if (!log.empty()) log += '\n';
  log += diagnostic(where, "error", message);
}

std::optional<format::Target> job_target(const CompileJob& job, CompileOutput& out) {
  std::optional<format::Target> target = format::parse_target(job.target);
  if (!target) out.log = diagnostic(job_location(job), "error", "unknown target '" + job.target + "'");
  return target;
}

std::vector<std::byte> serialize(const CompileOutput& output) {
  Writer w;
  w.u64(output.ok ? 1 : 0);
  w.str(output.log);
  w.bytes(output.image.data(), output.image.size());
  w.u64(output.lowered_names.size());
  for (const LoweredName& n : output.lowered_names) {
    w.str(n.expression);
    w.str(n.lowered);
  }
  w.u64(output.headers.size());
  for (const std::string& h : output.headers) w.str(h);
  w.u64(whole_microseconds(output.seconds));
  w.u64(output.headers_unknown ? 1 : 0);
  return w.take();
}

bool deserialize(const std::vector<std::byte>& bytes, CompileOutput& output) {
  Reader r(bytes);
  std::uint64_t ok = 0, count = 0, micros = 0, unknown = 0;
  if (!r.u64(ok) || !r.str(output.log) || !r.blob(output.image) || !r.u64(count)) return false;
  output.ok = ok == 1;
  output.lowered_names.clear();
  for (std::uint64_t i = 0; i < count; ++i) {
    LoweredName n;
    if (!r.str(n.expression) || !r.str(n.lowered)) return false;
    output.lowered_names.push_back(std::move(n));
  }
  if (!r.u64(count)) return false;
  output.headers.clear();
  for (std::uint64_t i = 0; i < count; ++i) {
    std::string h;
    if (!r.str(h)) return false;
    output.headers.push_back(std::move(h));
  }
  if (!r.u64(micros) || !r.u64(unknown)) return false;
  output.seconds = static_cast<double>(micros) / 1e6;
  output.headers_unknown = unknown == 1;
  return r.at_end();
}

}  // namespace kiln::compile

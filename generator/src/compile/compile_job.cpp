#include "compile/compile_job.hpp"

#include <cstdint>
#include <cstring>

namespace kiln::compile {

namespace {

// Length-prefixed fields in a fixed order; both ends are the same binary, so no versioning.
class Writer {
public:
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void bytes(const void* data, std::size_t size) {
    u64(size);
    raw(data, size);
  }
  void str(const std::string& s) { bytes(s.data(), s.size()); }
  std::vector<std::byte> take() { return std::move(m_out); }

private:
  void raw(const void* data, std::size_t size) {
    const auto* p = static_cast<const std::byte*>(data);
    m_out.insert(m_out.end(), p, p + size);
  }
  std::vector<std::byte> m_out;
};

class Reader {
public:
  explicit Reader(const std::vector<std::byte>& in) : m_in(in) {}
  bool u64(std::uint64_t& v) { return raw(&v, sizeof v); }
  bool str(std::string& s) {
    std::uint64_t size = 0;
    if (!u64(size) || size > m_in.size() - m_pos) return false;
    s.assign(reinterpret_cast<const char*>(m_in.data() + m_pos), size);
    m_pos += size;
    return true;
  }
  bool blob(std::vector<std::byte>& b) {
    std::uint64_t size = 0;
    if (!u64(size) || size > m_in.size() - m_pos) return false;
    b.assign(m_in.begin() + static_cast<std::ptrdiff_t>(m_pos),
             m_in.begin() + static_cast<std::ptrdiff_t>(m_pos + size));
    m_pos += size;
    return true;
  }
  bool at_end() const { return m_pos == m_in.size(); }

private:
  bool raw(void* data, std::size_t size) {
    if (size > m_in.size() - m_pos) return false;
    std::memcpy(data, m_in.data() + m_pos, size);
    m_pos += size;
    return true;
  }
  const std::vector<std::byte>& m_in;
  std::size_t m_pos = 0;
};

}  // namespace

std::optional<format::Target> job_target(const CompileJob& job, CompileOutput& out) {
  std::optional<format::Target> target = format::parse_target(job.target);
  if (!target) out.log = job.display_prefix + job.source + ": error: unknown target '" + job.target + "'";
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
  std::uint64_t micros = static_cast<std::uint64_t>(output.seconds * 1e6);
  w.u64(micros);
  return w.take();
}

bool deserialize(const std::vector<std::byte>& bytes, CompileOutput& output) {
  Reader r(bytes);
  std::uint64_t ok = 0, count = 0, micros = 0;
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
  if (!r.u64(micros)) return false;
  output.seconds = static_cast<double>(micros) / 1e6;
  return r.at_end();
}

}  // namespace kiln::compile

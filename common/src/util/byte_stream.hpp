// Length-prefixed fields in a fixed order, for values one Kiln writes and another reads: worker
// results (compile_job.hpp) and compile cache entries (compile_cache.cpp). Integers are in the
// machine's byte order; a cache key includes the machine, so an entry never meets another order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace kiln {

class ByteWriter {
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

// Every read fails (returns false) rather than run past the end.
class ByteReader {
public:
  explicit ByteReader(const std::vector<std::byte>& in) : m_in(in) {}
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
    b.assign(m_in.begin() + static_cast<std::ptrdiff_t>(m_pos), m_in.begin() + static_cast<std::ptrdiff_t>(m_pos + size));
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

}  // namespace kiln

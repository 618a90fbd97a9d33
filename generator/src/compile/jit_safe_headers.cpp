#include "compile/jit_safe_headers.hpp"

#include "util/file_io.hpp"
#include "util/hasher.hpp"

#include <cstring>
#include <system_error>

namespace kiln::compile {

const std::string& jit_safe_headers_digest() {
  static const std::string digest = [] {
    Hasher h(Hasher::Dump::skip);
    for (const JitSafeHeader& header : jit_safe_headers()) h.add(header.name, header.text);
    return h.hex_digest();
  }();
  return digest;
}

Status write_jit_safe_headers(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{"cannot create " + dir.string() + " for Kiln's JIT-safe headers: " + ec.message()};
  for (const JitSafeHeader& header : jit_safe_headers()) {
    const std::filesystem::path path = dir / header.name;
    if (read_text_file(path) == std::optional<std::string>(header.text)) continue;
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(header.text), std::strlen(header.text));
    if (Status s = write_file_atomically(path, bytes); !s) return s;
  }
  return Ok{};
}

}  // namespace kiln::compile

#include "util/same_file.hpp"

#include <sys/stat.h>

#include <system_error>

namespace kiln {

namespace fs = std::filesystem;

bool same_file(const fs::path& a, const fs::path& b) {
  struct stat sa {}, sb {};
  const bool a_exists = stat(a.c_str(), &sa) == 0;
  const bool b_exists = stat(b.c_str(), &sb) == 0;
  if (a_exists && b_exists) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (a_exists != b_exists) return false;
  // Neither exists yet (two outputs): the same path once links and "." / ".." are resolved.
  std::error_code ec_a, ec_b;
  const fs::path ca = fs::weakly_canonical(fs::absolute(a), ec_a);
  const fs::path cb = fs::weakly_canonical(fs::absolute(b), ec_b);
  if (ec_a || ec_b) return fs::absolute(a).lexically_normal() == fs::absolute(b).lexically_normal();
  return ca == cb;
}

}  // namespace kiln

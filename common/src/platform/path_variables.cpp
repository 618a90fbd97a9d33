// Variables that name where code is loaded from: the same rule on every system, through the
// system's own idea of a rooted path (std::filesystem: "/x" on POSIX; "C:\x", "\\server\share" or
// "\x" on Windows, where "C:x" is relative to drive C's working directory and refused).
#include "platform/text.hpp"

namespace kiln::platform {

std::string unrooted_path_problem(const char* variable, std::string_view value) {
  if (path_of_utf8(value).has_root_directory()) return {};
  return std::string(variable) + " is '" + std::string(value) +
         "', a relative path; it must be absolute (a relative one loads whatever lies there under the working "
         "directory)";
}

}  // namespace kiln::platform

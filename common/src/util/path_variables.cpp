// The rule of util/path_variables.hpp on every system, through the system's own idea of a rooted
// path (std::filesystem: "/x" on POSIX; "C:\x", "\\server\share" or "\x" on Windows, where "C:x" is
// relative to drive C's working directory and refused).
#include "util/path_variables.hpp"

#include "platform/text.hpp"

namespace kiln {

Status check_rooted_path(const char* variable, std::string_view value) {
  if (platform::path_of_utf8(value).has_root_directory()) return {};
  return fail(KILN_STATUS_INVALID_ARGUMENT,
              std::string(variable) + " is '" + std::string(value) +
                  "', a relative path; it must be absolute (a relative one loads whatever lies there under the "
                  "working directory)");
}

}  // namespace kiln

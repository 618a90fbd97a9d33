#include "platform/text.hpp"

#include <cstdlib>

namespace kiln::platform {

std::filesystem::path path_of_utf8(std::string_view utf8) { return std::filesystem::path(std::string(utf8)); }

std::string utf8_of(const std::filesystem::path& path) { return path.string(); }

char path_list_separator() { return ':'; }

const char* environment(const char* name) { return secure_getenv(name); }

}  // namespace kiln::platform

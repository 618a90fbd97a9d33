// Text as the operating system takes it. Kiln's API and messages are UTF-8; Windows' file and
// library functions take UTF-16 (windows/text.cpp), and a path longer than MAX_PATH (260) needs the
// \\?\ prefix. POSIX takes the bytes as they are (posix/text.cpp).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace kiln::platform {

// A path from UTF-8 text, as std::filesystem takes it on this system.
std::filesystem::path path_of_utf8(std::string_view utf8);

// A path as UTF-8 text.
std::string utf8_of(const std::filesystem::path& path);

// The separator of a list of directories in one variable: ':' (POSIX), ';' (Windows).
char path_list_separator();

// The value of an environment variable as UTF-8; null when unset. The pointer stays valid until the
// same thread asks for another variable. POSIX reads it with secure_getenv: a program running with
// privileges its user does not have (setuid, file capabilities) sees none of Kiln's variables, which
// name libraries to load and directories to write. Windows has no setuid (_wgetenv).
const char* environment(const char* name);

#if defined(_WIN32)
std::wstring wide_of(std::string_view utf8);
std::string utf8_of_wide(std::wstring_view wide);
// A path Windows' wide functions take whatever its length: absolute, '\'-separated, and \\?\-prefixed
// when it is longer than MAX_PATH.
std::wstring long_path(const std::filesystem::path& path);
// FormatMessageW's text for a GetLastError code, without its line break, and the code:
// "The specified module could not be found. (error 126)".
std::string system_message(unsigned long code);
#endif

}  // namespace kiln::platform

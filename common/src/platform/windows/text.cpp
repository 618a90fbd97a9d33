#include "platform/text.hpp"

#include <windows.h>

#include <cstdlib>

namespace kiln::platform {

std::wstring wide_of(std::string_view utf8) {
  if (utf8.empty()) return {};
  const int n = MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), nullptr, 0);
  std::wstring wide(static_cast<std::size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), wide.data(), n);
  return wide;
}

std::string utf8_of_wide(std::wstring_view wide) {
  if (wide.empty()) return {};
  const int n = WideCharToMultiByte(CP_UTF8, 0, wide.data(), static_cast<int>(wide.size()), nullptr, 0, nullptr, nullptr);
  std::string text(static_cast<std::size_t>(n), '\0');
  WideCharToMultiByte(CP_UTF8, 0, wide.data(), static_cast<int>(wide.size()), text.data(), n, nullptr, nullptr);
  return text;
}

std::filesystem::path path_of_utf8(std::string_view utf8) { return std::filesystem::path(wide_of(utf8)); }

std::string utf8_of(const std::filesystem::path& path) { return utf8_of_wide(std::wstring_view(path.native())); }

char path_list_separator() { return ';'; }

const char* environment(const char* name) {
  thread_local std::string value;
  const wchar_t* wide = _wgetenv(wide_of(name).c_str());
  if (!wide) return nullptr;
  value = utf8_of_wide(std::wstring_view(wide));
  return value.c_str();
}

std::wstring long_path(const std::filesystem::path& path) {
  std::error_code ignored;
  std::filesystem::path absolute = std::filesystem::absolute(path, ignored);
  if (absolute.empty()) absolute = path;
  std::wstring text = absolute.lexically_normal().make_preferred().native();
  if (text.size() < MAX_PATH || text.rfind(L"\\\\?\\", 0) == 0) return text;
  if (text.rfind(L"\\\\", 0) == 0) return L"\\\\?\\UNC\\" + text.substr(2);   // \\server\share\...
  return L"\\\\?\\" + text;
}

std::string system_message(unsigned long code) {
  wchar_t* buffer = nullptr;
  const DWORD n = FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                                 nullptr, code, 0, reinterpret_cast<LPWSTR>(&buffer), 0, nullptr);
  std::string text = n ? utf8_of_wide(std::wstring_view(buffer, n)) : "error " + std::to_string(code);
  if (buffer) LocalFree(buffer);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text + " (error " + std::to_string(code) + ")";   // the number, whatever the language of the text
}

}  // namespace kiln::platform

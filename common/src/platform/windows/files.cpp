#include "platform/files.hpp"

#include "platform/text.hpp"

#include <windows.h>
#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>

#include <cerrno>
#include <random>

namespace kiln::platform {

namespace {

// FILETIME (100 ns since 1601) to nanoseconds since 1970.
std::int64_t nanoseconds_of(const FILETIME& time) {
  const std::uint64_t ticks = (static_cast<std::uint64_t>(time.dwHighDateTime) << 32) | time.dwLowDateTime;
  return (static_cast<std::int64_t>(ticks) - 116444736000000000LL) * 100;
}

int errno_of(DWORD code) {
  switch (code) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND: return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION: return EACCES;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS: return EEXIST;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL: return ENOSPC;
    case ERROR_DIRECTORY: return ENOTDIR;
    default: return EIO;
  }
}

// A C runtime descriptor over a handle shared for reading, writing and deleting.
int open_shared(const std::filesystem::path& path, DWORD access, DWORD disposition, int flags) {
  HANDLE handle = CreateFileW(long_path(path).c_str(), access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                              nullptr, disposition, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_BACKUP_SEMANTICS, nullptr);
  if (handle == INVALID_HANDLE_VALUE) {
    errno = errno_of(GetLastError());
    return -1;
  }
  const int fd = _open_osfhandle(reinterpret_cast<intptr_t>(handle), flags | _O_BINARY | _O_NOINHERIT);
  if (fd < 0) CloseHandle(handle);
  return fd;
}

HANDLE handle_of(int fd) { return reinterpret_cast<HANDLE>(_get_osfhandle(fd)); }

// Replaces a template's trailing "XXXXXX" with random letters and digits, as mkstemp does.
void randomize_suffix(std::string& path_template) {
  static const char k_letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 random(std::random_device{}() ^ GetCurrentProcessId());
  const std::size_t at = path_template.size() - 6;
  for (std::size_t i = 0; i < 6; ++i) path_template[at + i] = k_letters[random() % (sizeof k_letters - 1)];
}

bool status_of_handle(HANDLE handle, FileStatus& out) {
  BY_HANDLE_FILE_INFORMATION info{};
  if (handle == INVALID_HANDLE_VALUE || !GetFileInformationByHandle(handle, &info)) {
    errno = EBADF;
    return false;
  }
  out.is_directory = (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
  out.is_regular = !out.is_directory && (info.dwFileAttributes & FILE_ATTRIBUTE_DEVICE) == 0;
  out.kind = out.is_directory ? "a directory" : out.is_regular ? "a regular file" : "a device";
  out.size = (static_cast<std::uint64_t>(info.nFileSizeHigh) << 32) | info.nFileSizeLow;
  out.mtime_ns = nanoseconds_of(info.ftLastWriteTime);
  out.device = info.dwVolumeSerialNumber;
  out.file = (static_cast<std::uint64_t>(info.nFileIndexHigh) << 32) | info.nFileIndexLow;
  return true;
}

}  // namespace

int open_for_reading(const std::filesystem::path& path) {
  return open_shared(path, GENERIC_READ, OPEN_EXISTING, _O_RDONLY);
}

int open_utf8_for_reading(const char* utf8) { return open_for_reading(path_of_utf8(utf8)); }

int open_regular_for_reading(const std::filesystem::path& path, bool /*follow_link: links need privileges here*/,
                             FileStatus* status) {
  const int fd = open_for_reading(path);
  if (fd < 0) return -1;
  FileStatus st;
  if (GetFileType(handle_of(fd)) == FILE_TYPE_DISK && status_of_handle(handle_of(fd), st) && st.is_regular) {
    if (status) *status = st;
    return fd;
  }
  _close(fd);
  errno = st.is_directory ? EISDIR : EINVAL;
  return -1;
}

int open_for_writing(const std::filesystem::path& path, bool truncate, bool /*follow_link*/) {
  return open_shared(path, GENERIC_READ | GENERIC_WRITE, truncate ? CREATE_ALWAYS : OPEN_ALWAYS, _O_RDWR);
}

int close_file(int fd) { return _close(fd); }

bool status_of(int fd, FileStatus& out) { return status_of_handle(handle_of(fd), out); }

bool status_of_utf8(const char* utf8, FileStatus& out) { return status_of(path_of_utf8(utf8), out); }

int open_regular_utf8_for_reading(const char* utf8, bool follow_link, FileStatus* status) {
  return open_regular_for_reading(path_of_utf8(utf8), follow_link, status);
}

bool status_of(const std::filesystem::path& path, FileStatus& out) {
  WIN32_FILE_ATTRIBUTE_DATA data{};
  if (!GetFileAttributesExW(long_path(path).c_str(), GetFileExInfoStandard, &data)) {
    errno = errno_of(GetLastError());
    return false;
  }
  out = FileStatus{};
  out.is_directory = (data.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
  out.is_regular = !out.is_directory && (data.dwFileAttributes & FILE_ATTRIBUTE_DEVICE) == 0;
  out.kind = out.is_directory ? "a directory" : out.is_regular ? "a regular file" : "a device";
  out.size = (static_cast<std::uint64_t>(data.nFileSizeHigh) << 32) | data.nFileSizeLow;
  out.mtime_ns = nanoseconds_of(data.ftLastWriteTime);
  return true;
}

DirectoryStatus::~DirectoryStatus() = default;

bool DirectoryStatus::status_of(const std::string& directory, const std::string& name, FileStatus& out) {
  const std::filesystem::path file = directory.empty() ? path_of_utf8(name) : path_of_utf8(directory) / path_of_utf8(name);
  return platform::status_of(file, out);
}

long read_some(int fd, void* buffer, std::size_t size) {
  DWORD got = 0;
  if (!ReadFile(handle_of(fd), buffer, static_cast<DWORD>(std::min<std::size_t>(size, 1u << 30)), &got, nullptr)) {
    errno = errno_of(GetLastError());
    return -1;
  }
  return static_cast<long>(got);
}

long read_at(int fd, void* buffer, std::size_t size, std::uint64_t offset) {
  OVERLAPPED at{};
  at.Offset = static_cast<DWORD>(offset);
  at.OffsetHigh = static_cast<DWORD>(offset >> 32);
  DWORD got = 0;
  if (!ReadFile(handle_of(fd), buffer, static_cast<DWORD>(std::min<std::size_t>(size, 1u << 30)), &got, &at)) {
    const DWORD code = GetLastError();
    if (code == ERROR_HANDLE_EOF) return 0;
    errno = errno_of(code);
    return -1;
  }
  return static_cast<long>(got);
}

long write_some(int fd, const void* buffer, std::size_t size) {
  DWORD put = 0;
  if (!WriteFile(handle_of(fd), buffer, static_cast<DWORD>(std::min<std::size_t>(size, 1u << 30)), &put, nullptr)) {
    errno = errno_of(GetLastError());
    return -1;
  }
  return static_cast<long>(put);
}

bool sync_file(int fd) { return FlushFileBuffers(handle_of(fd)) != 0; }

void sync_directory(const std::filesystem::path&) {}

int make_temporary(std::string& path_template) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    randomize_suffix(path_template);
    const int fd = open_shared(path_of_utf8(path_template), GENERIC_READ | GENERIC_WRITE, CREATE_NEW, _O_RDWR);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

bool make_private_directory(std::string& path_template) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    randomize_suffix(path_template);
    // Under the user's %TEMP%, whose ACL is the user's: a new directory inherits it.
    if (CreateDirectoryW(long_path(path_of_utf8(path_template)).c_str(), nullptr)) return true;
    if (GetLastError() != ERROR_ALREADY_EXISTS) {
      errno = errno_of(GetLastError());
      return false;
    }
  }
  errno = EEXIST;
  return false;
}

bool memory_backed_with_room(const std::filesystem::path&, std::uint64_t) { return false; }

std::filesystem::path user_cache_directory(const std::function<std::optional<std::string>(const char*)>& env,
                                           const std::string& application) {
  // The per-user, per-machine place (not the roaming profile): caches are rebuilt, not carried.
  return path_of_utf8(user_cache_directory_utf8(env, application));
}

std::string user_cache_directory_utf8(const std::function<std::optional<std::string>(const char*)>& env,
                                      const std::string& application) {
  const std::optional<std::string> local = env("LOCALAPPDATA");
  if (!local || !path_of_utf8(*local).has_root_directory()) return {};
  const char last = local->back();
  return *local + (last == '\\' || last == '/' ? "" : "\\") + application;
}

std::filesystem::path default_temporary_directory() {
  std::error_code ignored;
  return std::filesystem::temp_directory_path(ignored);
}

bool share_like_other_outputs(int) { return true; }   // Windows files take their directory's ACL

bool lock_file(int fd, bool wait) {
  OVERLAPPED whole{};
  const DWORD flags = LOCKFILE_EXCLUSIVE_LOCK | (wait ? 0 : LOCKFILE_FAIL_IMMEDIATELY);
  if (LockFileEx(handle_of(fd), flags, 0, MAXDWORD, MAXDWORD, &whole)) return true;
  errno = EWOULDBLOCK;
  return false;
}

bool replace_file(const std::filesystem::path& from, const std::filesystem::path& to) {
  const std::wstring source = long_path(from), target = long_path(to);
  // A reader that opened the target without FILE_SHARE_DELETE (another program, a virus scanner)
  // makes the replace fail for a moment: retried, 1 ms growing to 64 ms, about a second in all.
  DWORD pause = 1;
  for (int attempt = 0;; ++attempt) {
    if (MoveFileExW(source.c_str(), target.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) return true;
    const DWORD code = GetLastError();
    if ((code != ERROR_SHARING_VIOLATION && code != ERROR_ACCESS_DENIED && code != ERROR_LOCK_VIOLATION) || attempt >= 20) {
      errno = errno_of(code);
      return false;
    }
    Sleep(pause);
    pause = std::min<DWORD>(pause * 2, 64);
  }
}

bool directory_writable(const std::filesystem::path& directory) {
  std::string probe = utf8_of(directory / ".kiln-probe-XXXXXX");
  const int fd = make_temporary(probe);
  if (fd < 0) return false;
  _close(fd);
  DeleteFileW(long_path(path_of_utf8(probe)).c_str());
  return true;
}

bool touch_now(const std::filesystem::path& path) {
  HANDLE handle = CreateFileW(long_path(path).c_str(), FILE_WRITE_ATTRIBUTES,
                              FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                              FILE_FLAG_BACKUP_SEMANTICS, nullptr);
  if (handle == INVALID_HANDLE_VALUE) return false;
  FILETIME now{};
  GetSystemTimeAsFileTime(&now);
  const bool done = SetFileTime(handle, nullptr, nullptr, &now) != 0;
  CloseHandle(handle);
  return done;
}

long current_process_id() { return static_cast<long>(GetCurrentProcessId()); }

bool process_gone(long pid) {
  HANDLE process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, static_cast<DWORD>(pid));
  if (!process) return GetLastError() == ERROR_INVALID_PARAMETER;   // no such process
  DWORD code = 0;
  const bool exited = GetExitCodeProcess(process, &code) && code != STILL_ACTIVE;
  CloseHandle(process);
  return exited;
}

void* reserve_memory(std::size_t size) {
  // Committed but untouched pages take no physical memory; the commit charge is the cost.
  return VirtualAlloc(nullptr, size, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
}

// Large pages on Windows need a privilege (SeLockMemoryPrivilege) and are allocated up front: none.
void prefer_huge_pages(void*, std::size_t) {}

void release_memory(void* memory, std::size_t) {
  if (memory) VirtualFree(memory, 0, MEM_RELEASE);
}

}  // namespace kiln::platform

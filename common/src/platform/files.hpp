// Files, locks and processes, by operating system (posix/files.cpp, windows/files.cpp). Kiln keeps
// POSIX-style descriptors everywhere; on Windows they come from the C runtime over handles opened
// to share reading, writing and deleting, so a reader never stops another process from replacing
// a cache entry. Functions return -1 or false with errno set, like the calls they stand for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace kiln::platform {

struct FileStatus {
  bool is_directory = false;
  bool is_regular = false;
  // What it is, for messages about what is not a regular file: "a FIFO", "a socket", "a character
  // device", "a block device", "a directory", "a device" (Windows), "a regular file".
  const char* kind = "a file";
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;   // nanoseconds since the epoch (Windows: 100 ns steps)
  // The inode's last change (POSIX st_ctime), which no program can set back as it can the
  // modification time: what ccache's direct mode also compares. Windows: 0 (not asked for).
  std::int64_t ctime_ns = 0;
  std::uint64_t device = 0;    // with `file`: which file it is (inode; volume serial and file index)
  std::uint64_t file = 0;
};

// Opened for reading, binary, not inherited by child processes, and without waiting: opening a FIFO
// that has no writer returns at once (POSIX: O_NONBLOCK, which reads of regular files ignore), so a
// caller can refuse what is not a regular file (status_of) instead of hanging.
int open_for_reading(const std::filesystem::path& path);
// The same for a UTF-8 path as a program hands it over (kiln_package_open_file): on POSIX the bytes
// go to open() as they are, without building a std::filesystem::path, whose code a fresh process
// would otherwise page in on its first package open.
int open_utf8_for_reading(const char* utf8);
// Opened for reading only when it is a regular file: a FIFO, socket or device is refused without
// blocking (a FIFO's open and read would wait for a writer; /dev/zero never ends). Without
// `follow_link`, so is a final symbolic link on POSIX (where a file Kiln publishes by rename stands, a
// link is not Kiln's). -1 with errno ELOOP (a link), EISDIR, or EINVAL for anything else that is not
// a regular file. With `status`, the file's status as the check read it (one fstat, not two: the
// run-time cache's hits read two files each).
int open_regular_for_reading(const std::filesystem::path& path, bool follow_link, FileStatus* status = nullptr);
// The same for a UTF-8 path: on POSIX without building a std::filesystem::path (a run-time cache hit
// opens two files, and a fresh process would page in that code for them).
int open_regular_utf8_for_reading(const char* utf8, bool follow_link, FileStatus* status = nullptr);
// Created if missing (permissions 0666 less the umask), truncated when asked. Without `follow_link`
// a symbolic link at `path` is an error (ELOOP), never opened through (POSIX; Windows opens it).
int open_for_writing(const std::filesystem::path& path, bool truncate, bool follow_link = true);
int close_file(int fd);

bool status_of(int fd, FileStatus& out);
bool status_of(const std::filesystem::path& path, FileStatus& out);
// The same for a UTF-8 path, without a std::filesystem::path on POSIX (as open_utf8_for_reading).
bool status_of_utf8(const char* utf8, FileStatus& out);

// The status of files named within one directory at a time, as the header check takes them, sorted
// by directory (POSIX: the directory is held open and each name is looked up relative to it, a path
// walk of one name instead of every component from the root; Windows: the joined path). One
// directory is held at a time: holding many grows a CUDA process's descriptor table, which is slow.
class DirectoryStatus {
public:
  DirectoryStatus() = default;
  DirectoryStatus(const DirectoryStatus&) = delete;
  DirectoryStatus& operator=(const DirectoryStatus&) = delete;
  ~DirectoryStatus();
  // `directory` "" for a name relative to the current directory.
  bool status_of(const std::string& directory, const std::string& name, FileStatus& out);

private:
  std::string m_directory;
  int m_fd = -1;
  bool m_open = false;
};

long read_some(int fd, void* buffer, std::size_t size);
long read_at(int fd, void* buffer, std::size_t size, std::uint64_t offset);
long write_some(int fd, const void* buffer, std::size_t size);
bool sync_file(int fd);
// Makes a rename inside `directory` durable (POSIX: fsync of the directory; NTFS journals it).
void sync_directory(const std::filesystem::path& directory);

// A new file from a template ending in "XXXXXX" (replaced in place); opened for writing.
int make_temporary(std::string& path_template);
// Gives a file mkstemp made private (0600) the permissions a shared output needs (0666 less the umask).
bool share_like_other_outputs(int fd);

// A new directory from a template ending in "XXXXXX" (replaced in place), private to this user.
bool make_private_directory(std::string& path_template);

// Whether `directory` is in memory (a tmpfs), writable, with `bytes` free and more to spare; never
// on Windows, which has no such place for files.
bool memory_backed_with_room(const std::filesystem::path& directory, std::uint64_t bytes);

// The user's cache directory for `application`, from the variables `env` reads (UTF-8): POSIX
// $XDG_CACHE_HOME/<application>, else $HOME/.cache/<application>; Windows %LOCALAPPDATA%\<application>.
// Empty when none of them is set. A relative value is passed over, as the XDG Base Directory
// specification says of its variables: the cache would be wherever the process happens to run, and
// what it finds there would be loaded as kernels.
std::filesystem::path user_cache_directory(const std::function<std::optional<std::string>(const char*)>& env,
                                           const std::string& application);
// The same as UTF-8 text (what the loader's run-time cache hits use, without a std::filesystem::path).
std::string user_cache_directory_utf8(const std::function<std::optional<std::string>(const char*)>& env,
                                      const std::string& application);

// Where temporary files go when nothing says otherwise: /tmp; Windows' GetTempPathW.
std::filesystem::path default_temporary_directory();

// An exclusive lock on an open file (flock; LockFileEx), held until the descriptor is closed;
// false when `wait` is off and another holds it.
bool lock_file(int fd, bool wait);

// Renames `from` over `to` atomically. On Windows a sharing violation (another process has `to`
// open without delete sharing, a virus scanner) is retried for about a second.
bool replace_file(const std::filesystem::path& from, const std::filesystem::path& to);

// Whether files can be made in `directory` (POSIX: its permissions; Windows: a file made and removed,
// since its ACL decides); false with errno set.
bool directory_writable(const std::filesystem::path& directory);

// Sets a file's modification time to now (not its access time).
bool touch_now(const std::filesystem::path& path);

long current_process_id();
// Whether no process with this id runs (false when unsure).
bool process_gone(long pid);

// `size` bytes of zeroed memory whose pages are backed only once touched; null when not to be had.
void* reserve_memory(std::size_t size);
// Asks for huge pages where a read is about to fill [at, at + size) of reserved memory: only the
// whole huge pages inside the range, since a huge page is zeroed whole on its first touch (2 MiB to
// clear for a 64 KiB image costs more than the image's read). A hint; does nothing where unsupported.
void prefer_huge_pages(void* at, std::size_t size);
void release_memory(void* memory, std::size_t size);

}  // namespace kiln::platform

// headers_unchanged: the check every program-cache hit makes of the headers the program read last
// time. A CUB kernel reads about 600 of them, so the check is what a hit costs; it is kept cheap:
// the files are taken directory by directory, each directory opened once and its files stat'ed
// relative to it (a path walk of one name, not of every component from the root), and long lists
// are split over a few threads. Each thread holds one directory open at a time: in a process that
// has initialized CUDA (dozens of descriptors open, many threads), holding fifty would grow the
// descriptor table, which waits for an RCU grace period (measured: 10-20 ms instead of 1).
#include "rtc/compile_keys.hpp"
#include "platform/files.hpp"
#include "util/file_io.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

namespace kiln::rtc {

namespace {

// Below this many headers one thread checks them all: a thread costs about as much as 50 stats.
constexpr std::size_t k_headers_per_thread = 160;
constexpr unsigned k_max_threads = 8;

struct HeaderFile {
  std::string directory;   // absolute or as the request gave it; "" for a bare relative name
  std::string name;        // the last component
  const HeaderRecord* record = nullptr;   // null: a place where no file may be (a shadow)
};

std::string joined(const std::string& directory, const std::string& relative) {
  if (directory.empty()) return relative;
  return directory.back() == '/' ? directory + relative : directory + "/" + relative;
}

void add(std::vector<HeaderFile>& files, const std::string& path, const HeaderRecord* record) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) {
    files.push_back(HeaderFile{"", path, record});
  } else {
    files.push_back(HeaderFile{slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1), record});
  }
}

// Where each record is now, split into its directory and name; false when a record's include
// directory is not in the request (so it cannot be the same program). With them, the places NVRTC
// looks before an include directory's header where no file was when it was recorded (its shadows):
// beside the program and in the include directories before it. A file that appears there would now
// be read in its stead, so none may be there.
bool locate(const ProgramRequest& request, const std::vector<HeaderRecord>& records, std::vector<HeaderFile>& files) {
  const std::string beside = program_directory(request).string();
  files.reserve(records.size());
  for (const HeaderRecord& r : records) {
    std::string path;
    switch (r.origin) {
      case HeaderOrigin::include_dir:
        if (r.index >= request.include_dirs.size()) return false;
        path = joined(request.include_dirs[r.index], r.path);
        if ((r.shadows & k_shadow_beside) != 0) add(files, joined(beside, r.path), nullptr);
        for (std::uint32_t earlier = 0; earlier < r.index && earlier < 63; ++earlier)
          if ((r.shadows >> earlier & 1) != 0) add(files, joined(request.include_dirs[earlier], r.path), nullptr);
        break;
      case HeaderOrigin::beside_program: path = joined(beside, r.path); break;
      case HeaderOrigin::absolute: path = r.path; break;
    }
    add(files, path, &r);
  }
  return true;
}

// Checks files [begin, end); stops early once `failed` is set by any thread.
bool check_range(const std::vector<HeaderFile>& files, std::size_t begin, std::size_t end,
                 const std::atomic<bool>& failed) {
  platform::DirectoryStatus statuses;   // one directory held at a time, in sorted order
  bool unchanged = true;
  for (std::size_t i = begin; i < end && unchanged && !failed.load(std::memory_order_relaxed); ++i) {
    const HeaderFile& file = files[i];
    platform::FileStatus st;
    if (file.record == nullptr) {
      // Where no file was when the program was compiled, or it would have been read: one now shadows it.
      unchanged = !statuses.status_of(file.directory, file.name, st);
      continue;
    }
    const HeaderRecord& r = *file.record;
    if (r.stat_trusted && statuses.status_of(file.directory, file.name, st) && st.size == r.size &&
        st.mtime_ns == r.mtime_ns && st.ctime_ns == r.ctime_ns && st.device == r.device && st.file == r.file) {
      continue;
    }
    // Touched, moved, another file in its place, or too new to judge by its times: the content
    // decides (a touched file with the same bytes is the same header).
    unchanged = file_content_hash(joined(file.directory, file.name)) == r.content_hash;
  }
  return unchanged;
}

}  // namespace

bool headers_unchanged(const ProgramRequest& request, const std::vector<HeaderRecord>& records) {
  std::vector<HeaderFile> files;
  if (!locate(request, records, files)) return false;
  std::sort(files.begin(), files.end(), [](const HeaderFile& a, const HeaderFile& b) {
    return a.directory != b.directory ? a.directory < b.directory : a.name < b.name;
  });
  std::atomic<bool> failed{false};
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t wanted = std::min<std::size_t>({files.size() / k_headers_per_thread, hardware, k_max_threads});
  if (wanted <= 1) return check_range(files, 0, files.size(), failed);

  // Contiguous ranges of the sorted list: each thread opens few directories, each once.
  const std::size_t per_thread = (files.size() + wanted - 1) / wanted;
  std::vector<std::thread> helpers;
  std::size_t begin = per_thread;   // the calling thread takes the first range itself
  try {
    for (; begin < files.size(); begin += per_thread) {
      const std::size_t end = std::min(files.size(), begin + per_thread);
      helpers.emplace_back([&files, &failed, begin, end] {
        if (!check_range(files, begin, end, failed)) failed = true;
      });
    }
  } catch (...) {
    // No more threads to be had (or no memory for one): the calling thread checks what no helper
    // took, and the helpers already started are joined below either way.
    if (!check_range(files, begin, files.size(), failed)) failed = true;
  }
  if (!check_range(files, 0, std::min(files.size(), per_thread), failed)) failed = true;
  for (std::thread& helper : helpers) helper.join();
  return !failed;
}

}  // namespace kiln::rtc

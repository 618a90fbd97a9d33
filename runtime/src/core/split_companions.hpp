// The companions of a split package's main file (kiln split; format/split_files.hpp): the files of
// cubins, one per compute-capability major, that live beside it (beside its real path, when it was
// opened through a symbolic link). Each is opened on the first request for a device of its major,
// checked to be of the same split (its content id the one the main file lists), and kept as long
// as the package.
// A companion that is not installed is not an error here: the main file's PTX may serve, and the
// caller names the file when it does not.
#pragma once

#include "core/image_file.hpp"
#include "util/once.hpp"
#include "util/result.hpp"
#include "driver/driver_api.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::core {

class SplitCompanions {
public:
  // The companions `main` lists, or nullptr for a package that is not a split's main file.
  // `main_path`: where main was opened from; empty for a package in memory, whose companions
  // cannot be found. CORRUPT when the list is malformed.
  static Status of(const format::PackageReader& main, std::string_view main_label, std::string_view main_path,
                   bool log, std::unique_ptr<SplitCompanions>& out);
  ~SplitCompanions();

  // The companion that holds cubins for a device of `arch` (major * 10 + minor), opened on first use;
  // nullptr when the split has none for that major or it is not installed. A file that is there
  // but not a package of this split is an error naming it, every time it is asked for.
  Status for_arch(std::uint16_t arch, const ImageFile*& out);
  // After for_arch gave nullptr: "" when the split lists no companion for `arch`'s major, else a
  // clause naming the file to install, for a failure to find an image for such a device.
  std::string missing_hint(std::uint16_t arch) const;

  void unload_all(driver::DriverApi& driver);

private:
  struct Entry {
    std::uint16_t major = 0;
    std::string path;                  // beside the main file's real path
    std::string content_id;            // what the main file lists for it (split.contents)
    Once once;                         // util/once.hpp
    std::unique_ptr<ImageFile> file;   // set once opened; null when absent or refused
    Status failure;                    // why it was refused
  };
  SplitCompanions(const format::PackageReader& main, std::string main_label, std::string main_path, bool log);
  Entry* entry_for(std::uint16_t arch) const;
  Status open_entry(Entry& entry) const;

  const format::PackageReader& m_main;
  std::string m_main_label;
  std::string m_main_path;   // the main file's real path; empty: the package is in memory
  bool m_log;
  std::vector<std::unique_ptr<Entry>> m_entries;   // by major; entries never move (Once holds a mutex)
};

}  // namespace kiln::core

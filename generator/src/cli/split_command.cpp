// kiln split PKG [-o DIR]: rewrites a package as a main file (index, PTX, carried sources) and one
// companion per compute-capability major of its cubins (docs/split-packages.md). Companions are
// written first and the main file last, each atomically, so an interrupted split leaves the package
// it was given whole (and the runtime ignores companions the main file does not list).
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/package_file.hpp"
#include "format/checksum.hpp"
#include "writer/package_contents.hpp"
#include "format/package_reader.hpp"
#include "format/split_files.hpp"
#include "package/split_package.hpp"
#include "util/file_io.hpp"
#include "util/hasher.hpp"

#include <algorithm>
#include <iostream>
#include <set>

namespace kiln::cli {

namespace {

namespace fs = std::filesystem;

std::string describe_size(std::size_t bytes) {
  if (bytes < 10 * 1024) return std::to_string(bytes) + " B";
  if (bytes < 10 * 1024 * 1024) return std::to_string(bytes / 1024) + " KiB";
  return std::to_string(bytes / (1024 * 1024)) + " MiB";
}

std::string targets_of(const format::PackageContents& contents) {
  std::string list;
  for (const std::string& target : contents.targets) list += (list.empty() ? "" : " ") + target;
  return list.empty() ? "no images" : list;
}

// Companions of an earlier split of `main` that this one did not write (the package lost a major):
// a file named like one, that is a split's companion file, goes, so that an install of the directory
// ships no stale cubins. Anything else by that name is left alone.
void remove_stale_companions(const fs::path& main, const std::set<std::uint16_t>& written, bool verbose) {
  // companion_path of major 0 spells the pattern: "app.cc0.kiln" -> "app." + tag + ".kiln".
  const std::string pattern = format::companion_path(main.filename().string(), 0);
  const std::size_t tag_at = pattern.rfind("cc0");
  const std::string head = pattern.substr(0, tag_at), tail = pattern.substr(tag_at + 3);
  std::error_code error;
  const fs::path directory = main.parent_path().empty() ? fs::path(".") : main.parent_path();
  for (const fs::directory_entry& entry : fs::directory_iterator(directory, error)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= head.size() + tail.size() || !name.starts_with(head) || !name.ends_with(tail)) continue;
    const std::optional<std::uint16_t> major =
        format::parse_companion_tag(std::string_view(name).substr(head.size(), name.size() - head.size() - tail.size()));
    if (!major || written.contains(*major)) continue;
    Result<std::unique_ptr<PackageFile>> stale = open_package_file(entry.path());
    if (!stale || !(*stale)->reader.metadata_value(format::k_split_file_key)) continue;
    if (fs::remove(entry.path(), error) && verbose)
      std::cout << (main.parent_path() / name).string() << ": removed (a companion of an earlier split)\n";
  }
}

class SplitCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app.add_option("package", m_package, "The package to split")->required();
    app.add_option("-o,--output-dir", m_output_dir,
                   "Directory to write the files to (default: the package's own, which replaces it)");
    // Quiet on success, as kiln build is: CMake's SPLIT runs it after every build of the package.
    app.add_flag("-v,--verbose", m_verbose, "Print a line for each file written or removed");
  }

  int run() override {
    Result<std::unique_ptr<PackageFile>> opened = open_package_file(m_package);
    if (!opened) {
      std::cerr << "kiln split: error: " << opened.error().message << "\n";
      return k_exit_bad_input;
    }
    const PackageFile& file = **opened;
    Result<format::PackageContents> read = format::read_contents(file.reader);
    if (!read) {
      std::cerr << "kiln split: error: " << error_text(read.error()) << "\n";
      return k_exit_bad_input;
    }
    const format::PackageContents& contents = *read;
    const std::string split_id = hex64(format::checksum(file.bytes));
    Result<std::vector<package::SplitFile>> split = package::split_package(contents, split_id);
    if (!split) {
      std::cerr << "kiln split: error: " << m_package.string() << ": " << split.error().message << "\n";
      return k_exit_bad_input;
    }
    std::error_code ignored;   // a directory that cannot be made fails below, naming the file
    if (!m_output_dir.empty()) fs::create_directories(m_output_dir, ignored);
    const fs::path main = (m_output_dir.empty() ? m_package.parent_path() : m_output_dir) / m_package.filename();
    format::WriteOptions options;
    options.compress = format::any_image_compressed(file.reader);
    // The main file is first in `split` and written last, listing the content ids of the companions
    // as written (format/split_files.hpp).
    std::set<std::uint16_t> majors_written;
    std::vector<format::CompanionContent> contents_written;
    for (std::size_t i = split->size(); i-- > 0;) {
      package::SplitFile& part = (*split)[i];
      const fs::path path = part.major == 0 ? main : fs::path(format::companion_path(main.string(), part.major));
      if (part.major == 0 && !contents_written.empty()) {
        std::reverse(contents_written.begin(), contents_written.end());   // majors ascending
        part.contents.metadata.emplace_back(std::string(format::k_split_contents_key),
                                            format::companion_contents(contents_written));
      }
      Result<std::vector<std::byte>> written = format::write_package(part.contents, options);
      if (written && part.major != 0) {
        format::PackageReader reader;
        if (Status reopened = reader.open(*written, path.string()); !reopened) {
          written = std::move(reopened).error();
        } else {
          contents_written.push_back(format::CompanionContent{part.major, format::content_id(reader)});
        }
      }
      if (!written) {
        std::cerr << "kiln split: internal error: " << path.string() << ": " << error_text(written.error()) << "\n";
        return k_exit_internal;
      }
      if (Status s = write_file_atomically(path, *written); !s) {
        std::cerr << "kiln split: error: " << s.error().message << "\n";
        return k_exit_environment;
      }
      if (m_verbose)
        std::cout << path.string() << ": " << describe_size(written->size()) << " (" << targets_of(part.contents)
                  << ")\n";
      majors_written.insert(part.major);
    }
    remove_stale_companions(main, majors_written, m_verbose);
    return k_exit_ok;
  }

private:
  fs::path m_package;
  fs::path m_output_dir;
  bool m_verbose = false;
};

}  // namespace

std::unique_ptr<Command> make_split_command() { return std::make_unique<SplitCommand>(); }

}  // namespace kiln::cli

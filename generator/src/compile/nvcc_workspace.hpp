// Where nvcc runs, and the names it is given. nvcc runs each step of a compile through a shell
// (`sh -c`) and splices into those commands its working directory joined with the input's name,
// include directories, -D values, and the values of -frandom-seed and -Xcicc, some bare and some in
// double quotes (measured with CUDA 13.0's --dryrun). A source named `h $(touch x).cu`, a checkout in
// a directory with a space, or an output directory named `$(...)` would run a command, or break the
// build. So nvcc is given only plain names (util/plain_names.hpp), which Kiln chooses:
//
// - its outputs, its TMPDIR and Kiln's own files for it live in a workspace whose path is plain: the
//   job's work directory under the build's scratch directory where that path is plain, else a new
//   directory in the system's temporary directory;
// - it runs in the job's root when that path is plain (the usual case: names relative to the root
//   reach it as the user wrote them, so __FILE__ and messages are as in any nvcc build), else in the
//   workspace;
// - a file or directory whose name is not plain (or any relative one when nvcc runs in the
//   workspace) is reached through a symbolic link with a plain name in the workspace, and what nvcc
//   says about the link (its depfile, its messages) is mapped back to the path it stands for.
#pragma once

#include "util/result.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln::compile {

struct CompileJob;

class NvccWorkspace {
public:
  // Fails naming the directory it could not make, or the job's root when it cannot be resolved.
  static Result<NvccWorkspace> create(const CompileJob& job);
  NvccWorkspace(NvccWorkspace&& other) noexcept;
  NvccWorkspace& operator=(NvccWorkspace&&) = delete;
  ~NvccWorkspace();   // removes the workspace (the job's work directory too: its files were nvcc's)

  const std::filesystem::path& directory() const { return m_directory; }
  const std::filesystem::path& working_directory() const { return m_working_directory; }

  // How nvcc names `path` (relative to the job's root, or absolute; a file or a directory): the path
  // itself when it is plain and reaches the same file from nvcc's working directory, else a link to it.
  Result<std::string> name_for(const std::filesystem::path& path);
  // How nvcc names `name`, a file of the workspace's own (an output, Kiln's copy of a source).
  std::string own(const std::string& name) const;

  // The file a path in nvcc's depfile or messages names: resolved from nvcc's working directory and
  // through the workspace's links; nothing for the workspace's own files.
  std::optional<std::filesystem::path> project_path(const std::string& named) const;
  // `log` with each link's name replaced by the path it stands for, as the job names it.
  std::string unlinked(std::string log) const;

private:
  NvccWorkspace(std::filesystem::path directory, std::filesystem::path working_directory, std::filesystem::path root);
  std::filesystem::path m_directory;
  std::filesystem::path m_working_directory;
  std::filesystem::path m_root;
  struct Link {
    std::string name;                   // as nvcc is given it
    std::filesystem::path target;       // absolute
    std::string as_written;             // the path as the job gave it, for messages
  };
  std::vector<Link> m_links;
};

}  // namespace kiln::compile

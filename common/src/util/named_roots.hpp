// The directories a build's paths are recorded against, so that what Kiln keeps (cache keys, cache
// entries, packages) holds no absolute path and no path relative to where the build runs: a second
// checkout, another build directory, pip's temporary build tree or a CI runner at another path find
// the same keys and write the same bytes. A recorded path starts with the name of the innermost
// root that holds it ("<build>/gen/config.h", "<cuda>/include/cuda_fp16.h"); what lies under none is
// kept as it is.
//
//   <root>   the project: the manifest's directory, or `kiln build --root`
//   <build>  the build directory: `kiln build --build-dir`, else the output's directory; none when it
//            holds the project (an in-source build)
//   <kiln>   Kiln's own include directory (the one holding kiln/kiln.hpp)
//   <cuda>   the CUDA toolkit
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

struct NamedRoots {
  std::filesystem::path root;
  std::filesystem::path build;
  std::filesystem::path kiln;
  std::filesystem::path cuda;

  // "<name>" for a root itself, "<name>/rest" for an absolute path under one (the innermost: a build
  // directory inside the project is <build>); any other path as it is.
  std::string tokenize(const std::filesystem::path& path) const;
  // A path that starts with "<name>" or "<name>/" under that root; any other as it is.
  std::filesystem::path expand(std::string_view recorded) const;

  // Every absolute path in `text` (a message, an option, a JSON string) that lies under a root, with
  // that root written as its name; a root matches whole directories only (/opt/cuda never inside
  // /opt/cuda-12).
  std::string tokenize_text(std::string text) const;
  // The names in `text` replaced by these roots: where a name starts a path ("<root>/a.cu",
  // "\"<build>\""), never inside a C++ name ("vec<root>").
  std::string expand_text(std::string text) const;

  // The named roots, innermost first (longest path first); roots that are not set are left out.
  struct Named {
    std::string_view name;
    std::string path;   // absolute, lexically normal, no trailing '/'
  };
  std::vector<Named> named() const;
};

}  // namespace kiln

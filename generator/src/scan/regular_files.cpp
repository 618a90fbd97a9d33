#include "scan/regular_files.hpp"

#include "util/file_io.hpp"

#include <string>
#include <system_error>

namespace kiln::scan::detail {

namespace {

// clang reports "cannot open file '<path>': <message>".
class NotRegularCategory final : public std::error_category {
public:
  const char* name() const noexcept override { return "kiln-special-file"; }
  std::string message(int) const override {
    return "it is a FIFO, a socket or a device" + std::string(k_not_a_regular_file);
  }
};

const NotRegularCategory& not_regular() {
  static const NotRegularCategory category;
  return category;
}

class RegularFilesOnly final : public llvm::vfs::ProxyFileSystem {
public:
  explicit RegularFilesOnly(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> disk) : ProxyFileSystem(std::move(disk)) {}

  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine& path) override {
    // The status first: stat never waits, an open of a FIFO does. Directories pass (clang opens none
    // for reading; what fails there is clang's to say).
    const llvm::ErrorOr<llvm::vfs::Status> status = ProxyFileSystem::status(path);
    if (status && !status->isRegularFile() && !status->isDirectory()) return std::error_code(1, not_regular());
    return ProxyFileSystem::openFileForRead(path);
  }
};

}  // namespace

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> regular_files_only(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> disk) {
  return llvm::makeIntrusiveRefCnt<RegularFilesOnly>(std::move(disk));
}

}  // namespace kiln::scan::detail

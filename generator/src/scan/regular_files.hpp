// The disk as the scan's clang sees it: clang opens the headers a source includes itself, and a
// header that is a FIFO or a device would block the parse (a FIFO with no writer) or never end (a
// device). Such a file does not open: its status says what it is, and the open fails with an error
// whose message holds k_not_a_regular_file (util/file_io.hpp), which stops the build.
#pragma once

#include <llvm/ADT/IntrusiveRefCntPtr.h>
#include <llvm/Support/VirtualFileSystem.h>

namespace kiln::scan::detail {

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> regular_files_only(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> disk);

}  // namespace kiln::scan::detail

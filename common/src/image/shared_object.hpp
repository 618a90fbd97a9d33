// Whether a file is a library this process may load, judged from its bytes alone: loading a library
// runs its constructors, so a file that is not the library Kiln asked for (a text file, another
// machine's build, a program, a library without the entry point Kiln binds) is refused before any
// of its code runs. platform::open_checked_library hands the file's bytes here.
#pragma once

#include "image/byte_view.hpp"
#include "util/result.hpp"

#include <string>
#include <string_view>

namespace kiln::image {

struct SharedObjectCheck {
  Status loadable;                  // why the file may not be loaded, for a message, when it may not
  bool lacks_entry_point = false;   // a shared object of this machine that only lacks `entry_point`
};

// An ELF shared object (ET_DYN) of this process's class, byte order and machine (e_machine) whose
// dynamic symbol table (.dynsym) defines `entry_point` as a global or weak symbol. Never reads
// outside `file`.
SharedObjectCheck check_shared_object(Bytes file, std::string_view entry_point);
// `check` as a platform::LibraryFileCheck answers (platform/ knows no Status): "" when the file may be
// loaded, else why not.
std::string loading_refusal(const SharedObjectCheck& check);

// The library at `path` (a file by path), loaded only once its bytes pass check_shared_object for
// `entry_point` (none of its code runs otherwise); else "not found", or why it was refused or failed
// to load. What the loader does for the compile library and the compile library for NVRTC and
// nvJitLink.
Result<void*> open_library_exporting(const std::string& path, const char* entry_point);

}  // namespace kiln::image

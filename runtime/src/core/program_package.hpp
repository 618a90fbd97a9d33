// kiln_program_compile's core: a program from strings compiled for the current device (through the
// compile library and its cache) and opened as a package.
#pragma once

#include "core/package.hpp"
#include "core/compile_library.hpp"

#include <memory>

namespace kiln::core {

Status compile_program(const ProgramRequest& request, std::unique_ptr<Package>& out);

}  // namespace kiln::core

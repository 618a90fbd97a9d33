// TEMPORARY until the dlopen loader lands (jit/): no compiler.
#include "rtc/compiler_access.hpp"

namespace kiln::rtc {

Result<Compiler*> load_process_compiler(int) { return Error{"no run-time compiler yet"}; }

}  // namespace kiln::rtc
namespace kiln::rtc {
void add_compiler_search_directory(const std::string&) {}
}  // namespace kiln::rtc

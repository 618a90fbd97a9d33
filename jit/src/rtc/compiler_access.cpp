#include "rtc/compiler_access.hpp"

#include <mutex>

namespace kiln::rtc {

namespace {

std::mutex g_mutex;
std::shared_ptr<Compiler> g_test_compiler;
std::string g_test_failure;

}  // namespace

Result<Compiler*> load_process_compiler(int required_major);   // compiler_process.cpp

Result<Compiler*> process_compiler(int required_major) {
  {
    std::lock_guard lock(g_mutex);
    if (g_test_compiler) return g_test_compiler.get();
    if (!g_test_failure.empty()) return Error{g_test_failure};
  }
  return load_process_compiler(required_major);
}

void set_compiler_for_testing(std::shared_ptr<Compiler> compiler, std::string no_compiler) {
  std::lock_guard lock(g_mutex);
  g_test_compiler = std::move(compiler);
  g_test_failure = std::move(no_compiler);
}

}  // namespace kiln::rtc

#include "rtc/compiler_access.hpp"

#include <mutex>

namespace kiln::rtc {

namespace {

std::mutex g_mutex;
std::shared_ptr<Compiler> g_test_compiler;

}  // namespace

Result<Compiler*> load_process_compiler(int required_major);   // compiler_process.cpp

Result<Compiler*> process_compiler(int required_major) {
  {
    std::lock_guard lock(g_mutex);
    if (g_test_compiler) return g_test_compiler.get();
  }
  return load_process_compiler(required_major);
}

void set_compiler_for_testing(std::shared_ptr<Compiler> compiler) {
  std::lock_guard lock(g_mutex);
  g_test_compiler = std::move(compiler);
}

}  // namespace kiln::rtc

// Prints what platform::environment reads for the variable named by its argument, "(unset)" when
// nothing: tests/driver/library_check_test.cpp runs it as a setuid program.
#include "platform/text.hpp"

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const char* value = kiln::platform::environment(argv[1]);
  std::printf("%s\n", value ? value : "(unset)");
  return 0;
}

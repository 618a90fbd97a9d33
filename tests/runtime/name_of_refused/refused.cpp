// Spellings kiln::name_of refuses at compile time (CTest expects each CASE to fail with its message):
//   float_value     a floating-point value (compilers mangle it differently)
//   pointer_value   a pointer value
//   no_rtti         any use, when compiled with -fno-rtti
#include "kiln/kiln.hpp"

int probe_target = 0;

int main() {
#if defined(CASE_float_value)
  return static_cast<int>(kiln::name_of<1.5f>("k").size());
#elif defined(CASE_pointer_value)
  return static_cast<int>(kiln::name_of<&probe_target>("k").size());
#elif defined(CASE_no_rtti)
  return static_cast<int>(kiln::name_of<float>("k").size());
#else
#  error "define CASE_<name>"
#endif
}

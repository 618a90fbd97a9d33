// The words a Kiln variable that switches something takes (KILN_JIT, KILN_CACHE): one list, so that
// the loader, the compile library and the cache read a value alike.
#pragma once

#include <string_view>

namespace kiln {

// 0, false, no, off: the switch is off.
inline bool is_off_word(std::string_view value) {
  return value == "0" || value == "false" || value == "no" || value == "off";
}

// 1, true, yes, on: the switch is on.
inline bool is_on_word(std::string_view value) {
  return value == "1" || value == "true" || value == "yes" || value == "on";
}

}  // namespace kiln

#include "store/size_spec.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace kiln::store {

Result<std::uint64_t> parse_size(std::string_view text, std::string_view what) {
  const auto error = [&] {
    return Error{std::string(what) + ": '" + std::string(text) +
                 "' is not a size (a number with an optional unit K, M, G, T or Ki, Mi, Gi, Ti, such as 5G or 500M)"};
  };
  std::size_t digits = 0;
  while (digits < text.size() && ((text[digits] >= '0' && text[digits] <= '9') || text[digits] == '.')) ++digits;
  if (digits == 0 || text.substr(0, digits).find('.') != text.substr(0, digits).rfind('.')) return error();
  const double number = std::strtod(std::string(text.substr(0, digits)).c_str(), nullptr);
  std::string_view unit = text.substr(digits);
  if (unit.ends_with("B") && !unit.empty()) unit.remove_suffix(1);
  double scale = 0;
  const bool binary = unit.size() == 2 && unit[1] == 'i';
  switch (unit.empty() ? 'G' : unit.size() <= 2 && (unit.size() == 1 || binary) ? unit[0] : '?') {
    case 'k': case 'K': scale = binary ? 1024.0 : 1e3; break;
    case 'M': scale = binary ? 1024.0 * 1024 : 1e6; break;
    case 'G': scale = binary ? 1024.0 * 1024 * 1024 : 1e9; break;
    case 'T': scale = binary ? 1024.0 * 1024 * 1024 * 1024 : 1e12; break;
    default: return error();
  }
  const double bytes = number * scale;
  if (!std::isfinite(bytes) || bytes >= 1.8e19) return error();
  return static_cast<std::uint64_t>(std::llround(bytes));
}

std::string format_size(std::uint64_t bytes) {
  char text[32];
  if (bytes < 1000) {
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
    return text;
  }
  const char* units[] = {"kB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes) / 1000;
  int u = 0;
  while (value >= 1000 && u < 3) {
    value /= 1000;
    ++u;
  }
  std::snprintf(text, sizeof text, "%.1f %s", value, units[u]);
  return text;
}

}  // namespace kiln::store

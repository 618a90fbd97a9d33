#include "manifest/checks.hpp"

#include "format/target.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace kiln::manifest::detail {

bool is_identifier_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

bool is_identifier_char(char c) { return is_identifier_start(c) || (c >= '0' && c <= '9'); }

const std::string_view k_accepted_targets =
    "sm_XY, sm_XYa, sm_XYf, compute_XY, compute_XYa or compute_XYf, where XY is the compute "
    "capability without the dot (e.g. sm_80, sm_90a, sm_100f, compute_120)";

bool is_identifier(std::string_view text) {
  return !text.empty() && is_identifier_start(text.front()) &&
         std::all_of(text.begin(), text.end(), is_identifier_char);
}

bool is_blank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

Status check_define(std::string_view define) {
  const std::string_view name = define.substr(0, define.find('='));
  if (is_identifier(name)) return Ok{};
  return fail(KILN_STATUS_INVALID_ARGUMENT, "must be NAME or NAME=VALUE, with NAME an identifier");
}

Status check_package_name(std::string_view name) {
  const std::string because = "cannot be a file name (the package file is <name>.kiln)";
  const auto refused = [](std::string reason) { return fail(KILN_STATUS_INVALID_ARGUMENT, std::move(reason)); };
  if (name.empty()) return refused("is empty: it " + because);
  if (name == "." || name == "..") return refused(because);
  for (const char c : name) {
    if (c == '/' || c == '\\' || c == ':') return refused(because + ": it contains '" + c + "'");
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return refused(because + ": it contains a control character");
  }
  return Ok{};
}

std::optional<std::string> canonical_target(std::string_view text) {
  const std::optional<format::Target> target = format::parse_target(text);
  if (!target) return std::nullopt;
  return target->name();
}

std::string did_you_mean_target(std::string_view text) {
  for (const std::string& spelling : target_respellings(text))
    if (const std::optional<std::string> canonical = canonical_target(spelling))
      return " (did you mean '" + *canonical + "'?)";
  return "";
}

}  // namespace kiln::manifest::detail

#include "manifest/template_reader.hpp"

#include "manifest/checks.hpp"
#include "manifest/cross_product.hpp"
#include "manifest/manifest_reader.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <utility>

namespace kiln::manifest::detail {
namespace {

constexpr std::string_view k_section = "[[source.template]]";
constexpr std::array<std::string_view, 1> k_kernel_key = {"kernel"};

// A placeholder value as it is spelt inside a C++ expression.
std::optional<std::string> spell(const toml::node& value) {
  if (const auto* string = value.as_string()) {
    if (is_blank(string->get())) return std::nullopt;
    return string->get();
  }
  if (const auto* integer = value.as_integer()) return std::to_string(integer->get());
  if (const auto* boolean = value.as_boolean()) return boolean->get() ? "true" : "false";
  return std::nullopt;
}

// The values of placeholder `name`; nothing (after reporting why) if any of them is unusable.
std::optional<std::vector<std::string>> read_values(std::string_view name, const toml::node& node,
                                                    Diagnostics& diags) {
  const auto* array = node.as_array();
  if (array == nullptr) {
    diags.error(position_of(node), "placeholder " + quote(name) + " must be an array of values (" +
                                   std::string(name) + " = [...]), not " + std::string(describe_type(node)));
    return std::nullopt;
  }
  if (array->empty()) {
    diags.error(position_of(node), "placeholder " + quote(name) + " has no values");
    return std::nullopt;
  }
  std::vector<std::string> values;
  bool usable = true;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& element = *array->get(i);
    std::optional<std::string> value = spell(element);
    if (!value) {
      const std::string what = element.is_string() ? "an empty string" : std::string(describe_type(element));
      diags.error(position_of(element), "placeholder " + quote(name) + ": element " + std::to_string(i + 1) +
                                        " is " + what +
                                        "; values must be non-empty strings, integers or booleans");
      usable = false;
    } else if (std::find(values.begin(), values.end(), *value) != values.end()) {
      diags.error(position_of(element), "placeholder " + quote(name) + " lists " + quote(*value) + " twice");
      usable = false;
    } else {
      values.push_back(std::move(*value));
    }
  }
  if (!usable) return std::nullopt;
  return values;
}

}  // namespace

std::vector<Located> read_template(const toml::table& table, Diagnostics& diags) {
  const toml::node* kernel = table.get("kernel");
  std::optional<std::string> pattern;
  if (kernel == nullptr) {
    diags.error(position_of(table), std::string(k_section) + " has no 'kernel' pattern");
  } else {
    pattern = read_string(*kernel, "kernel", diags);
  }
  const std::vector<std::string> identifiers =
      pattern ? identifiers_in(*pattern) : std::vector<std::string>{};
  const std::vector<std::string_view> candidates(identifiers.begin(), identifiers.end());

  // TOML++ keeps keys sorted, so collect the placeholders first and order them by the pattern.
  std::vector<std::pair<std::string, std::vector<std::string>>> args;
  bool usable = pattern.has_value();
  for (auto&& [key, value] : table) {
    const std::string_view name = key.str();
    if (name == "kernel") continue;
    if (std::find(identifiers.begin(), identifiers.end(), name) == identifiers.end()) {
      // Not a placeholder: a misspelt 'kernel', or a name that the pattern does not use. Without a
      // pattern only the first can be told; the missing 'kernel' has been reported already.
      const std::string unknown = "unknown key " + quote(name) + " in " + std::string(k_section);
      if (nearest(name, k_kernel_key)) {
        diags.error(position_of(key), unknown + did_you_mean(name, k_kernel_key));
      } else if (pattern) {
        diags.error(position_of(key), unknown + ": it does not occur in the kernel pattern " + quote(*pattern) +
                                      did_you_mean(name, candidates));
      }
      usable = false;
      continue;
    }
    std::optional<std::vector<std::string>> values = read_values(name, value, diags);
    if (!values) {
      usable = false;
      continue;
    }
    args.emplace_back(name, std::move(*values));
  }
  if (!usable) return {};

  std::ranges::sort(args, {}, [&](const auto& arg) {
    return std::find(identifiers.begin(), identifiers.end(), arg.first) - identifiers.begin();
  });
  std::size_t count = 1;
  for (const auto& arg : args) {
    if (count > k_max_template_expansions / arg.second.size()) {
      diags.error(position_of(*kernel), "template " + quote(*pattern) + " expands to more than " +
                                        std::to_string(k_max_template_expansions) + " expressions");
      return {};
    }
    count *= arg.second.size();
  }

  std::vector<Located> expressions;
  for (std::string& expression : expand_cross_product(*pattern, args)) {
    expressions.push_back({std::move(expression), line_of(*kernel), position_of(*kernel).column});
  }
  return expressions;
}

}  // namespace kiln::manifest::detail

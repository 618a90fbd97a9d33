// Kernel and variable names as keys: the spelling a user writes is normalized so that
// "block_sum<float,256>" and "block_sum< float, 256 >" are one key.
#pragma once

#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::format {

// Removes all whitespace except one space where it separates two identifier characters
// ([A-Za-z0-9_]), as in "unsigned int". "foo<bar<int> >" becomes "foo<bar<int>>".
std::string normalize_name(std::string_view name);
// The same into `out`, which must hold name.size() bytes (normalizing never lengthens a name; bytes
// of `out` past the key's end may be written too): what lookups use, with a buffer on the stack, so
// that finding a kernel allocates nothing.
std::string_view normalize_name_into(std::string_view name, char* out);
// The length of `name`'s first run without whitespace: normalizing leaves it as it is, and a name
// without whitespace (every name a package stores but those like "unsigned int") entirely.
std::size_t unspaced_prefix(std::string_view name);
// normalize_name_into for a name whose first `prefix` bytes (unspaced_prefix, at most) `out`
// already holds: the rest is normalized after them.
std::string_view normalize_name_after(std::string_view name, std::size_t prefix, char* out);
// A normalized name's template and its arguments, without a leading "::":
// "block_sum<double, 512>" -> ("block_sum", "<double, 512>"); "::ns::k" -> ("ns::k", "").
struct TemplateParts {
  std::string base;
  std::string arguments;
};
TemplateParts split_template_name(std::string_view normalized);
// Whether normalize_name(name) would return `name` unchanged, as it does for every name a package
// stores: lookups and checks then use the name as it is, without a copy.
bool is_normalized(std::string_view name);

// A name as the tables hold it: the name itself when already normalized, else normalized into a
// buffer on the stack (on the heap past 256 bytes), so that finding a kernel allocates nothing.
// Inline: every lookup makes one.
class NameKey {
public:
  std::string_view of(std::string_view name) {
    // One pass: up to the first whitespace the name is its own key; a name with none is used as it
    // is, one with some is copied that far and normalized from there.
    const std::size_t prefix = unspaced_prefix(name);
    if (prefix == name.size()) return name;
    if (name.size() <= sizeof m_buffer) {
      std::memcpy(m_buffer, name.data(), prefix);
      return normalize_name_after(name, prefix, m_buffer);
    }
    if (is_normalized(name)) return name;
    m_long = normalize_name(name);
    return m_long;
  }

private:
  char m_buffer[256];
  std::string m_long;
};

// A variant kernel's stored lowered name, "<variant>/<symbol>" (KernelFlags::k_kernel_variant),
// split at its first '/'. The symbol is a suffix of the stored name, so a NUL-terminated stored
// name gives a NUL-terminated symbol.
struct VariantName {
  std::string_view variant;  // "f64"
  std::string_view symbol;   // "_Z5scaleIdEvPT_": what the image holds
};
// nullopt unless `stored` has a '/' with at least one byte on each side of the first one.
std::optional<VariantName> split_variant_name(std::string_view stored);

}  // namespace kiln::format

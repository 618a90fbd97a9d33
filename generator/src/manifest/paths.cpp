#include "manifest/paths.hpp"

#include <algorithm>
#include <system_error>

namespace kiln::manifest::detail {
namespace {

namespace fs = std::filesystem;

// The placeholders an include directory may start with, known only when building
// (util/named_roots.hpp): the CUDA toolkit, the build directory and Kiln's own include directory.
constexpr std::string_view k_tokens[] = {"<cuda>", "<build>", "<kiln>"};

std::string_view what_token_names(std::string_view token) {
  if (token == "<cuda>") return "the CUDA toolkit";
  if (token == "<build>") return "the build directory";
  return "Kiln's include directory";
}

bool escapes(std::string_view normalized) { return normalized == ".." || normalized.starts_with("../"); }

// Why `location` cannot be used as `what` (a file or a directory): the sentence's end, "does not
// exist", as the error's message.
std::string_view why_unusable(const fs::file_status& status, fs::file_type what) {
  if (status.type() == fs::file_type::not_found) return "does not exist";
  if (what == fs::file_type::directory) return "is not a directory";
  // A FIFO or a device would block the build, or never end: only regular files are sources.
  switch (status.type()) {
    case fs::file_type::directory: return "is not a file";
    case fs::file_type::fifo: return "is a FIFO, not a regular file";
    case fs::file_type::socket: return "is a socket, not a regular file";
    case fs::file_type::character: return "is a character device, not a regular file";
    case fs::file_type::block: return "is a block device, not a regular file";
    default: return "is not a regular file";
  }
}

// Whether `location` can be used as `what`; if not, the error's message completes "source path 'x' ".
Status check_exists(const fs::path& location, fs::file_type what) {
  std::error_code error;
  const fs::file_status status = fs::status(location, error);
  if (status.type() == what) return Ok{};
  if (error && status.type() != fs::file_type::not_found)
    return fail(KILN_STATUS_IO_ERROR, "cannot be accessed: " + error.message());
  return fail(KILN_STATUS_INVALID_ARGUMENT, std::string(why_unusable(status, what)));
}

}  // namespace

std::string normalize_relative(std::string_view path) {
  std::string normal = fs::path(path).lexically_normal().generic_string();
  // lexically_normal keeps a trailing separator ("include/"); stored paths never have one.
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal.empty() ? "." : normal;
}

std::optional<std::string> check_source_path(const Located& path, const fs::path& root, Diagnostics& diags,
                                             std::string_view what) {
  const std::string label = std::string(what) + " ";
  if (fs::path(path.text).is_absolute()) {
    diags.error(path.at(), label + quote(path.text) + " must be relative to the manifest directory");
    return std::nullopt;
  }
  std::string normal = normalize_relative(path.text);
  if (escapes(normal)) {
    diags.error(path.at(), label + quote(path.text) + " is outside the manifest directory");
    return std::nullopt;
  }
  const fs::path location = root / normal;
  if (Status usable = check_exists(location, fs::file_type::regular); !usable) {
    diags.error(path.at(), label + quote(normal) + " " + usable.error().message + " (looked for " + location.string() + ")");
    return std::nullopt;
  }
  return normal;
}

std::optional<std::string> check_include_dir(const Located& dir, const fs::path& root, Diagnostics& diags) {
  const std::string_view text = dir.text;
  if (text.starts_with('<')) {
    const std::size_t close = text.find('>');
    const std::string_view token = text.substr(0, close == std::string_view::npos ? text.size() : close + 1);
    const std::string_view rest = text.substr(token.size());
    const bool known = std::find(std::begin(k_tokens), std::end(k_tokens), token) != std::end(k_tokens);
    if (!known || !(rest.empty() || rest.starts_with('/'))) {
      diags.error(dir.at(), "unknown token " + quote(token) + " in include directory " + quote(text) +
                                " (the tokens are '<cuda>', '<build>' and '<kiln>', as in '<cuda>/include/cccl')");
      return std::nullopt;
    }
    std::string_view inside = rest;
    while (inside.starts_with('/')) inside.remove_prefix(1);
    const std::string normal = inside.empty() ? "." : normalize_relative(inside);
    if (escapes(normal)) {
      diags.error(dir.at(), "include directory " + quote(text) + " is outside " + std::string(what_token_names(token)));
      return std::nullopt;
    }
    return normal == "." ? std::string(token) : std::string(token) + "/" + normal;
  }
  if (fs::path(text).is_absolute()) {
    diags.error(dir.at(), "include directory " + quote(text) +
                              " must be relative to the manifest directory or start with '<cuda>/', '<build>/' or "
                              "'<kiln>/'");
    return std::nullopt;
  }
  std::string normal = normalize_relative(text);
  const fs::path location = root / normal;
  if (Status usable = check_exists(location, fs::file_type::directory); !usable) {
    diags.error(dir.at(), "include directory " + quote(normal) + " " + usable.error().message + " (looked for " +
                              location.string() + ")");
    return std::nullopt;
  }
  return normal;
}

}  // namespace kiln::manifest::detail

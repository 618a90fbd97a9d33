// An entry is one value of the store (store/store.hpp), under the XXH3-128 of everything that decides
// what the scanner finds before it reads a header; the store adds its own checksum and atomic
// publication. The value:
//
//   kiln-scan-cache 2\n                     magic and format version
//   inputs:\n                               what went into the key, one "  tag: value" line each
//   ...                                     (for "why did this miss?"; never read back)
//   \n
//   <payload>                               to_json(ScanResult) (scan_json.hpp)
//
// The entry is valid while every header in the result still has the content hash the scanner
// recorded when it read it.
#include "scan/scan_cache.hpp"

#include "scan/compile_args.hpp"
#include "scan/parser_module.hpp"

#include "format/checksum.hpp"
#include "scan/scan_json.hpp"
#include "util/file_io.hpp"
#include "util/hasher.hpp"
#include "util/named_roots.hpp"

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string_view>
#include <system_error>

namespace kiln::scan {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_magic = "kiln-scan-cache 2";
// Bump when the scanner finds something different in the same input, so old entries miss.
constexpr std::string_view k_scanner_version = "kiln-scan 4";   // 2: nvcc extras, tolerated errors; 3: symbol forms;
                                                                // 4: every API that takes a kernel name is a request

std::string_view as_text(const std::vector<std::byte>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// Which kiln scanned: a rebuilt or upgraded kiln may scan differently while k_scanner_version stays
// the same, so its entries must miss (as ccache's compiler_check). The executable's GNU build ID (a
// hash of its contents the linker writes) where it has one, so that machines running the same kiln
// share entries through a remote cache; else its size and modification time. (The parser module is
// known the same way: parser_module_identity.)
const std::string& executable_identity() {
  static const std::string identity = [] {
    if (std::string id = detail::file_build_id("/proc/self/exe"); !id.empty()) return "build-id " + id;
    struct stat info {};
    if (stat("/proc/self/exe", &info) != 0) return std::string("unknown");
    return std::to_string(info.st_size) + "@" + std::to_string(info.st_mtim.tv_sec) + "." +
           std::to_string(info.st_mtim.tv_nsec);
  }();
  return identity;
}

struct Key {
  std::string hex;
  std::string inputs;                     // Hasher::dump()
};

NamedRoots roots_of(const ScanInput& input) {
  std::error_code ec;
  return {fs::absolute(input.directory, ec).lexically_normal(), input.build_dir, input.kiln_include_dir, input.cuda_root};
}

// Every string of a stored result with its paths under `roots` written by their names, or back.
void rewrite_strings(nlohmann::json& json, const std::function<std::string(std::string)>& rewrite) {
  if (json.is_string()) {
    json = rewrite(json.get<std::string>());
  } else if (json.is_array() || json.is_object()) {
    for (nlohmann::json& item : json) rewrite_strings(item, rewrite);
  }
}

std::optional<Key> make_key(const ScanInput& input, const std::vector<RuntimeRequest>* requests = nullptr) {
  const fs::path source = input.file.is_absolute() ? input.file : input.directory / input.file;
  Result<std::vector<std::byte>> bytes = read_binary_file(source);
  if (!bytes) return std::nullopt;
  // No path goes in as it lies: each under the project, the build directory, Kiln's include directory
  // or the toolkit by its root's name (util/named_roots.hpp), so that a copy of the tree elsewhere, or
  // another build directory, finds the same entries. What the toolkit is goes in as its version.json.
  const NamedRoots roots = roots_of(input);
  Hasher hasher;
  hasher.add("format", k_magic);
  hasher.add("scanner", k_scanner_version);
  hasher.add("executable", executable_identity());
  hasher.add("parser", detail::parser_module_identity());   // the clang parser is a module of its own
  hasher.add("role", input.role == ScanInput::Role::kernels ? "kernels" : "host");
  // Results spell locations as the file was given; relative paths resolve against the directory.
  hasher.add("file", roots.tokenize(input.file));
  hasher.add("source", *bytes);
  for (const std::string& dir : input.include_dirs) hasher.add("include_dir", roots.tokenize(dir));
  for (const std::string& define : input.defines) hasher.add("define", roots.tokenize_text(define));
  for (const std::string& macro : input.macro_options) hasher.add("macro_option", roots.tokenize_text(macro));
  for (const std::string& header : input.pre_includes) hasher.add("pre_include", roots.tokenize(header));
  hasher.add("default_device", input.default_device ? "yes" : "no");
  if (input.relocatable) hasher.add("relocatable", "yes");
  hasher.add("std", input.language_standard);
  Hasher toolkit;
  if (Result<std::vector<std::byte>> json = read_binary_file(input.cuda_root / "version.json")) toolkit.add("json", *json);
  hasher.add("toolkit", toolkit.hex_digest());
  // The headers clang parses with: the directory chosen. The bundled copy is named relative to the
  // parser module, whose build ID is in the key and which ships with it, so that the same wheel
  // installed in two places shares entries.
  const detail::ResourceDir resource_dir = detail::clang_resource_dir();
  hasher.add("clang_resource_dir", resource_dir.from == detail::ResourceDir::From::bundled
                                       ? std::string("<parser>/") + std::string(detail::k_bundled_resource_dir)
                                       : resource_dir.path.string());
  // A resolution's entry: the requests it resolved, with the places its instantiations will carry.
  if (requests) {
    hasher.add("entry", "resolution");
    for (const RuntimeRequest& r : *requests)
      hasher.add("request", std::string(r.what == RuntimeRequest::What::kernel ? "kernel " : "variable ") + r.name +
                                " @ " + roots.tokenize(r.location.file) + ":" + std::to_string(r.location.line) + ":" +
                                std::to_string(r.location.column));
  }
  return Key{hasher.hex_digest(), hasher.dump()};
}

// "line\n" at `at`, advancing past it; nothing at the end of the text.
std::optional<std::string_view> next_line(std::string_view text, std::size_t& at) {
  if (at >= text.size()) return std::nullopt;
  const std::size_t end = text.find('\n', at);
  if (end == std::string_view::npos) return std::nullopt;
  const std::string_view line = text.substr(at, end - at);
  at = end + 1;
  return line;
}

// The JSON of a value if it starts with the magic line.
std::optional<std::string_view> payload_of(std::string_view text) {
  std::size_t at = 0;
  if (next_line(text, at) != k_magic) return std::nullopt;
  for (std::optional<std::string_view> line = next_line(text, at); line; line = next_line(text, at))
    if (line->empty()) return text.substr(at);
  return std::nullopt;
}

void write_entry(store::Store& store, const Key& key, const ScanResult& result, const NamedRoots& roots) {
  std::string text = std::string(k_magic) + "\ninputs:\n";
  for (std::size_t at = 0, end = 0; at < key.inputs.size(); at = end + 1) {
    end = key.inputs.find('\n', at);
    if (end == std::string::npos) end = key.inputs.size();
    text += "  " + key.inputs.substr(at, end - at) + "\n";
  }
  nlohmann::json json = to_json(result);
  rewrite_strings(json, [&](std::string value) { return roots.tokenize_text(std::move(value)); });
  text += "\n" + json.dump(1) + "\n";
  // A cache that cannot be written only costs time: the store drops the error.
  store.put(key.hex, std::as_bytes(std::span(text.data(), text.size())));
}

}  // namespace

ScanCache::ScanCache(store::Store& store) : m_store(store) {}

std::optional<std::uint64_t> ScanCache::header_hash(const fs::path& path) const {
  // Keyed as spelled: clang names some headers through symbolic links ("/../lib/gcc/../../include"),
  // which lexical normalization would resolve wrongly.
  const auto [it, inserted] = m_header_hashes.try_emplace(path.string());
  if (inserted) {
    Result<std::vector<std::byte>> bytes = read_binary_file(path);
    if (bytes) it->second = format::checksum(*bytes);
  }
  return it->second;
}

std::optional<ScanResult> ScanCache::read_valid(const std::string& key, const ScanInput& input) const {
  const std::optional<std::vector<std::byte>> bytes = m_store.get(key);
  if (!bytes) return std::nullopt;
  const std::optional<std::string_view> payload = payload_of(as_text(*bytes));
  if (!payload) return std::nullopt;
  // The value passed the store's checksum; JSON this build cannot read is a miss like any other.
  nlohmann::json json = nlohmann::json::parse(*payload, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return std::nullopt;
  const NamedRoots roots = roots_of(input);
  rewrite_strings(json, [&](std::string value) { return roots.expand_text(std::move(value)); });
  const fs::path& directory = roots.root;
  Result<ScanResult> result = from_json(json);
  if (!result || !result->ok()) return std::nullopt;
  for (const Header& header : result->headers) {
    const fs::path path = fs::path(header.path).is_absolute() ? fs::path(header.path) : directory / header.path;
    if (header_hash(path) != header.content_hash) return std::nullopt;
  }
  return std::move(*result);
}

std::optional<ScanResult> ScanCache::lookup(const ScanInput& input) const {
  const std::optional<Key> key = make_key(input);
  if (!key) return std::nullopt;
  return read_valid(key->hex, input);
}

void ScanCache::store(const ScanInput& input, const ScanResult& result) const {
  if (!result.ok()) return;
  if (const std::optional<Key> key = make_key(input)) write_entry(m_store, *key, result, roots_of(input));
}

ScanResult ScanCache::scan(const ScanInput& input) const {
  if (std::optional<ScanResult> hit = lookup(input)) return std::move(*hit);
  // The key is taken before the scan and checked after it: a source edited while it was scanned
  // must not be stored under its new content.
  const std::optional<Key> before = make_key(input);
  ScanResult result = scan_source(input);
  const std::optional<Key> after = make_key(input);
  if (result.ok() && before && after && before->hex == after->hex) write_entry(m_store, *before, result, roots_of(input));
  return result;
}

// A resolution is stored as a ScanResult holding its instantiations and warnings, plus the source's
// headers, so that the same entry format and validity rule serve both.
std::optional<Resolution> ScanCache::lookup_resolution(const ScanInput& source, const ScanResult&,
                                                       const std::vector<RuntimeRequest>& requests) const {
  const std::optional<Key> key = make_key(source, &requests);
  if (!key) return std::nullopt;
  std::optional<ScanResult> stored = read_valid(key->hex, source);
  if (!stored) return std::nullopt;
  return Resolution{std::move(stored->instantiations), std::move(stored->diagnostics)};
}

Resolution ScanCache::resolve(const ScanInput& source, const ScanResult& scanned,
                              const std::vector<RuntimeRequest>& requests) const {
  if (std::optional<Resolution> hit = lookup_resolution(source, scanned, requests)) return std::move(*hit);
  const std::optional<Key> before = make_key(source, &requests);
  Resolution resolution = resolve_requests(source, scanned, requests);
  const std::optional<Key> after = make_key(source, &requests);
  if (before && after && before->hex == after->hex) {
    ScanResult entry;
    entry.instantiations = resolution.instantiations;
    entry.diagnostics = resolution.diagnostics;
    entry.headers = scanned.headers;
    write_entry(m_store, *before, entry, roots_of(source));
  }
  return resolution;
}

}  // namespace kiln::scan

// scan_source: which parses a source needs, and putting their findings together.
//
// A kernel source is parsed for the device side first: with the NVRTC prelude when it includes only
// user headers (20 ms), else, or when that fails, with clang's CUDA wrapper and the toolkit's headers.
// The host side is parsed too when the user's files show host code or test __CUDA_ARCH__, so that
// launches under #ifndef __CUDA_ARCH__ are found. Each side's references are merged without
// duplicates; declarations come from the device side only. The device parse reads a precompiled
// preamble (ScanInput::preamble_pch) where the scan phase made one for sources that start alike.
#include "scan/scan_job.hpp"
#include "scan/source_text.hpp"
#include "util/diagnostic.hpp"
#include "util/file_io.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <span>
#include <set>
#include <tuple>

namespace kiln::scan {

namespace {

using detail::ParseMode;
using detail::ParseOutput;

ScanResult failure(std::vector<detail::ClangError> errors) {
  ScanResult result;
  for (detail::ClangError& e : errors) result.diagnostics.push_back(std::move(e.diagnostic));
  return result;
}

ScanResult failure(const std::string& message) {
  ScanResult result;
  result.diagnostics.push_back({Diagnostic::Severity::error, {}, message});
  return result;
}

template <typename T, typename Key>
void sort_unique(std::vector<T>& v, Key key) {
  std::sort(v.begin(), v.end(), [&](const T& a, const T& b) { return key(a) < key(b); });
  v.erase(std::unique(v.begin(), v.end(), [&](const T& a, const T& b) { return key(a) == key(b); }), v.end());
}

// Sorted, without duplicates (both sides of a file report the same launch or request).
void normalize(ScanResult& r) {
  sort_unique(r.instantiations, [](const Instantiation& i) {
    return std::tie(i.kernel, i.name_expression, i.found_by, i.location.file, i.location.line, i.location.column);
  });
  sort_unique(r.requests, [](const RuntimeRequest& q) {
    return std::tie(q.location.file, q.location.line, q.location.column, q.what, q.name);
  });
  sort_unique(r.diagnostics, [](const Diagnostic& d) {
    return std::tie(d.location.file, d.location.line, d.location.column, d.severity, d.message);
  });
  auto by_location = [](const auto& a, const auto& b) {
    return std::tie(a.location.file, a.location.line, a.location.column) <
           std::tie(b.location.file, b.location.line, b.location.column);
  };
  std::stable_sort(r.kernels.begin(), r.kernels.end(), by_location);
  std::stable_sort(r.variables.begin(), r.variables.end(), by_location);
  std::sort(r.headers.begin(), r.headers.end(), [](const Header& a, const Header& b) { return a.path < b.path; });
}

template <typename T>
void append(std::vector<T>& to, std::vector<T>&& from) {
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

ParseOutput parse(const ScanInput& input, const detail::SourceFile& source, ParseMode mode, bool declarations) {
  detail::ParseJob job = detail::make_job(input, source, mode, source.argument);
  job.declarations = declarations;
  return detail::run_parse(job);
}

// The preamble's main file: its #include lines, read from the source's own directory so that its
// quoted includes find what the source's find.
detail::VirtualFile preamble_file(const detail::SourceFile& source, const detail::LeadingIncludes& preamble) {
  return {(source.full_path.parent_path() / ".kiln-scan-preamble.cuh").string(), preamble.text};
}

// Beside a preamble's PCH: the parse it was made for and how the files it read were spelled (make_pch).
std::filesystem::path preamble_facts_file(const std::filesystem::path& pch) {
  return std::filesystem::path(pch.string() + ".json");
}

struct SharedPreamble {
  ParseMode mode = ParseMode::device;
  std::map<std::string, std::string> spellings;
};

std::optional<SharedPreamble> read_preamble(const ScanInput& input) {
  if (input.preamble_pch.empty()) return std::nullopt;
  const std::optional<std::string> text = read_text_file(preamble_facts_file(input.preamble_pch));
  if (!text) return std::nullopt;
  const nlohmann::json json = nlohmann::json::parse(*text, nullptr, false);
  if (!json.is_object() || !json.contains("spellings") || !json["spellings"].is_object()) return std::nullopt;
  SharedPreamble shared;
  shared.mode = json.value("mode", "") == "prelude" ? ParseMode::device_prelude : ParseMode::device;
  for (const auto& [absolute, spelled] : json["spellings"].items())
    if (spelled.is_string()) shared.spellings.emplace(absolute, spelled.get<std::string>());
  return shared;
}

// Names as a parse without the PCH spells them, wherever the result names a file.
void respell(ScanResult& result, const std::map<std::string, std::string>& spellings) {
  const auto fix = [&](std::string& file) {
    if (const auto found = spellings.find(file); found != spellings.end()) file = found->second;
  };
  for (Kernel& k : result.kernels) fix(k.location.file);
  for (Instantiation& i : result.instantiations) fix(i.location.file);
  for (RuntimeRequest& r : result.requests) fix(r.location.file);
  for (Variable& v : result.variables) fix(v.location.file);
  for (Header& h : result.headers) fix(h.path);
  for (Diagnostic& d : result.diagnostics) fix(d.location.file);
}

// A device-side parse, through the shared preamble's PCH where it was made for this mode; the whole
// source where that fails (a PCH clang refuses, a source edited since).
ParseOutput parse_device(const ScanInput& input, const detail::SourceFile& source, ParseMode mode,
                         const std::optional<SharedPreamble>& shared) {
  const detail::LeadingIncludes preamble = detail::leading_includes(source.text);
  if (shared && shared->mode == mode && preamble.lines > 0) {
    detail::VirtualFile main = preamble_file(source, preamble);
    detail::ParseJob job = detail::make_job(input, source, mode, source.argument, {main});
    job.include_pch = input.preamble_pch.string();
    job.main_text = detail::blank_lines(source.text, preamble.lines);
    job.preamble_file = main.path;
    ParseOutput output = detail::run_parse(job);
    if (!output.failed) {
      respell(output.found, shared->spellings);
      return output;
    }
  }
  return parse(input, source, mode, true);
}

ScanResult scan_host_source(const ScanInput& input, const detail::SourceFile& source) {
  ParseOutput host = parse(input, source, detail::host_source_mode(input.file), false);
  if (host.failed) return failure(std::move(host.errors));
  host.found.has_host_code = true;
  normalize(host.found);
  return std::move(host.found);
}

ScanResult scan_kernel_source(const ScanInput& input, const detail::SourceFile& source) {
  ParseOutput device;
  bool parsed = false;
  // A preamble that failed with the NVRTC prelude (so every source starting with it does) was made
  // for clang's CUDA wrapper: the prelude is not tried again for each source.
  const std::optional<SharedPreamble> shared = read_preamble(input);
  if (detail::prelude_candidate(input, source.text) && !(shared && shared->mode == ParseMode::device)) {
    device = parse_device(input, source, ParseMode::device_prelude, shared);
    parsed = !device.failed;
  }
  if (!parsed) device = parse_device(input, source, ParseMode::device, shared);
  if (device.failed) return failure(std::move(device.errors));
  ScanResult result = std::move(device.found);
  bool host_code = device.host_definitions || device.launches || device.cuda_runtime_included;

  if (host_code || device.arch_conditionals) {
    ParseOutput host = parse(input, source, ParseMode::host, false);
    if (host.failed) return failure(std::move(host.errors));
    host_code = host_code || host.host_definitions || host.launches || host.cuda_runtime_included;
    append(result.instantiations, std::move(host.found.instantiations));
    append(result.requests, std::move(host.found.requests));
    // Headers only the host side reads (e.g. under #ifndef __CUDA_ARCH__) matter to a cache key too.
    std::set<std::string> known;
    for (const Header& h : result.headers) known.insert(h.path);
    for (Header& h : host.found.headers)
      if (known.insert(h.path).second) result.headers.push_back(std::move(h));
    append(result.diagnostics, std::move(host.found.diagnostics));
  }
  result.has_host_code = host_code;
  normalize(result);   // requests deduplicated before they are resolved
  Resolution own = resolve_requests(input, result, result.requests);
  append(result.instantiations, std::move(own.instantiations));
  append(result.diagnostics, std::move(own.diagnostics));
  normalize(result);
  return result;
}

}  // namespace

Status make_preamble_pch(const ScanInput& input, const std::filesystem::path& pch) try {
  Result<detail::SourceFile> source = detail::read_source(input);
  if (!source) return std::move(source).error();
  const detail::LeadingIncludes preamble = detail::leading_includes(source->text);
  if (preamble.lines == 0) return fail(KILN_STATUS_INVALID_ARGUMENT, "it does not start with #include lines", place(input.file.string()));
  // For the parse the device side starts with: the NVRTC prelude where the source may take it, and
  // clang's CUDA wrapper where it does not or the preamble fails with the prelude.
  std::vector<ParseMode> modes = {ParseMode::device};
  if (detail::prelude_candidate(input, source->text)) modes.insert(modes.begin(), ParseMode::device_prelude);
  Status made = Ok{};
  for (const ParseMode mode : modes) {
    detail::VirtualFile main = preamble_file(*source, preamble);
    const std::string main_path = main.path;
    std::map<std::string, std::string> spellings;
    made = detail::make_pch(detail::make_job(input, *source, mode, main_path, {std::move(main)}), pch, spellings);
    if (!made) continue;
    const nlohmann::json facts = {{"mode", mode == ParseMode::device_prelude ? "prelude" : "device"},
                                  {"spellings", spellings}};
    const std::string text = facts.dump();
    if (const Status written =
            write_file_atomically(preamble_facts_file(pch), std::as_bytes(std::span(text.data(), text.size())));
        !written) {
      std::error_code ignored;
      std::filesystem::remove(pch, ignored);
      return written.error();
    }
    return Ok{};
  }
  return made;
} catch (const std::exception& e) {
  return fail(KILN_STATUS_INTERNAL_ERROR, std::string("internal error while precompiling the preamble: ") + e.what(),
              place(input.file.string()));
}

void remove_preamble_pch(const std::filesystem::path& pch) {
  std::error_code ignored;
  std::filesystem::remove(pch, ignored);
  std::filesystem::remove(preamble_facts_file(pch), ignored);
}

std::string preamble_key(const ScanInput& input) try {
  if (input.role != ScanInput::Role::kernels) return {};
  Result<detail::SourceFile> source = detail::read_source(input);
  if (!source) return {};
  const detail::LeadingIncludes preamble = detail::leading_includes(source->text);
  if (preamble.lines == 0) return {};
  std::string key = source->full_path.parent_path().string() + '\n' + preamble.text;
  for (const std::string& argument : detail::clang_arguments(input, ParseMode::device, "")) key += '\n' + argument;
  return key;
} catch (const std::exception&) {
  return {};
}

ScanResult scan_source(const ScanInput& input) try {
  Result<detail::SourceFile> source = detail::read_source(input);
  if (!source) return failure(source.error().message);
  return input.role == ScanInput::Role::host ? scan_host_source(input, *source) : scan_kernel_source(input, *source);
} catch (const std::exception& e) {
  return failure(std::string("internal error while scanning ") + input.file.string() + ": " + e.what());
}

}  // namespace kiln::scan

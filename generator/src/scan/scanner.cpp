// scan_source: which parses a source needs, and putting their findings together.
//
// A kernel source is parsed for the device side first: with the NVRTC prelude when it includes only
// user headers (20 ms), else, or when that fails, with clang's CUDA wrapper and the toolkit's headers.
// The host side is parsed too when the user's files show host code or test __CUDA_ARCH__, so that
// launches under #ifndef __CUDA_ARCH__ are found. Each side's references are merged without
// duplicates; declarations come from the device side only.
#include "scan/scan_job.hpp"

#include <algorithm>
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
  if (detail::prelude_candidate(input, source.text)) {
    device = parse(input, source, ParseMode::device_prelude, true);
    parsed = !device.failed;
  }
  if (!parsed) device = parse(input, source, ParseMode::device, true);
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

ScanResult scan_source(const ScanInput& input) try {
  Result<detail::SourceFile> source = detail::read_source(input);
  if (!source) return failure(source.error().message);
  return input.role == ScanInput::Role::host ? scan_host_source(input, *source) : scan_kernel_source(input, *source);
} catch (const std::exception& e) {
  return failure(std::string("internal error while scanning ") + input.file.string() + ": " + e.what());
}

}  // namespace kiln::scan

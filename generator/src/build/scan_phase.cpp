#include "build/scan_phase.hpp"

#include "build/kiln_headers.hpp"
#include "build/preamble_sharing.hpp"
#include "options/compiler_options.hpp"
#include "scan/python_scanner.hpp"
#include "scan/scan_cache.hpp"
#include "scan/scan_json.hpp"
#include "scan/unnamed_namespaces.hpp"
#include "platform/files.hpp"
#include "util/diagnostic.hpp"
#include "util/file_io.hpp"
#include "util/named_roots.hpp"
#include "util/process_pool.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <tuple>

namespace kiln::build {

namespace {

namespace fs = std::filesystem;
using scan::ScanInput;
using scan::ScanResult;

// A kernel source is scanned with its include directories (the manifest's, then its own) and what
// changes the language in its compile options (options/): -D, -U, -std, -include, -default-device. A host source, with the manifest's macros, at the standard its
// own build gives it (--host-std), else the kernels', raised to one its C++ can use
// (options::host_standard), and Kiln's own headers.
ScanInput input_for(const manifest::Manifest& manifest, const manifest::SourceEntry* source, const fs::path& file,
                    const compile::Toolkit& toolkit, const ScanPhaseSettings& settings, ScanInput::Role role) {
  const fs::path& build_dir = settings.build_dir;
  ScanInput in;
  in.file = file;
  in.directory = fs::absolute(manifest.root).lexically_normal();
  in.build_dir = build_dir;
  in.kiln_include_dir = kiln_include_dir();
  const NamedRoots roots{in.directory, in.build_dir, in.kiln_include_dir, toolkit.root};
  for (const std::string& dir : manifest.include_dirs) in.include_dirs.push_back(roots.expand(dir).string());
  // A kernel source's own directories, where its compile searches them: after the manifest's.
  if (source)
    for (const std::string& dir : source->include_dirs) in.include_dirs.push_back(roots.expand(dir).string());
  if (manifest.toolkit_includes) {
    in.include_dirs.push_back((toolkit.root / "include" / "cccl").string());
    in.include_dirs.push_back((toolkit.root / "include").string());
  }
  in.defines = manifest.defines;
  // The manifest checked the options already: a list that does not read gives no scan options.
  const Result<options::CompilerOptions> top = options::interpret(manifest.options);
  if (source) {
    std::vector<std::string> options = manifest.options;
    for (const std::string& define : source->defines) options.push_back("-D" + define);
    options.insert(options.end(), source->options.begin(), source->options.end());
    if (const Result<options::CompilerOptions> all = options::interpret(options)) {
      in.macro_options = all->scan.macros;
      in.pre_includes = all->scan.pre_includes;
      in.default_device = all->scan.default_device;
      in.relocatable = all->relocatable || !source->link_group.empty();
      if (!all->scan.standard.empty()) in.language_standard = all->scan.standard;
    }
  } else if (top) {
    in.macro_options = top->scan.macros;
  }
  in.cuda_root = toolkit.root;
  in.role = role;
  if (role == ScanInput::Role::host) {
    const std::string kernels = top ? top->scan.standard : "";
    in.language_standard = options::host_standard(settings.host_standard.empty() ? kernels : settings.host_standard);
    in.include_dirs.push_back(in.kiln_include_dir.string());
  }
  return in;
}

// A --host-source or --python-source path relative to the manifest directory when it lies inside it
// (locations then read like the manifest's own paths), else absolute.
fs::path relative_to_root(const fs::path& given, const fs::path& root) {
  const fs::path absolute = fs::absolute(given).lexically_normal();
  const fs::path relative = absolute.lexically_relative(root);
  return !relative.empty() && *relative.begin() != ".." ? relative : absolute;
}

std::vector<std::byte> to_bytes(const ScanResult& result) {
  const std::string text = scan::to_json(result).dump();
  const auto* data = reinterpret_cast<const std::byte*>(text.data());
  return {data, data + text.size()};
}

std::optional<ScanResult> from_bytes(const std::vector<std::byte>& bytes) {
  const nlohmann::json json = nlohmann::json::parse(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                                                    nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return std::nullopt;
  Result<ScanResult> result = scan::from_json(json);
  return result ? std::optional<ScanResult>(std::move(*result)) : std::nullopt;
}

ScanResult failed_result(const std::string& message) {
  ScanResult r;
  r.diagnostics.push_back({scan::Diagnostic::Severity::error, {}, message});
  return r;
}

// Runs `work` for each index in `todo`, in worker processes unless jobs is 1. Results travel as
// ScanResult JSON; a worker that dies yields a failed result saying so.
// `name(i)` names the file for progress lines.
void run_all(const std::vector<std::size_t>& todo, const ScanPhaseSettings& settings, const std::string& prefix,
             const std::function<ScanResult(std::size_t)>& work, std::vector<ScanResult>& results,
             const std::function<std::string(std::size_t)>& name) {
  std::size_t done = 0;
  const auto finished = [&](std::size_t i) {
    if (settings.progress) settings.progress(++done, todo.size(), name(i));
  };
  if (settings.jobs <= 1 || todo.size() <= 1) {
    for (const std::size_t i : todo) {
      results[i] = work(i);
      finished(i);
    }
    return;
  }
  scan::load_parser();   // once, here: the workers inherit it
  run_in_processes(
      todo.size(), {settings.jobs, settings.scratch_dir, prefix, settings.jobserver},
      [&](std::size_t k) { return to_bytes(work(todo[k])); },
      [&](std::size_t k, WorkerResult worker) {
        std::optional<ScanResult> result = worker.bytes ? from_bytes(*worker.bytes) : std::nullopt;
        results[todo[k]] = result ? std::move(*result)
                                  : failed_result("the scanner process " + (worker.failure.empty()
                                                                               ? std::string("failed to report its result")
                                                                               : worker.failure));
        finished(todo[k]);
      });
}

// `l` as the user sees it; a diagnostic of no file is about `fallback`, the file scanned.
Location display(Location l, const std::string& fallback, const std::string& prefix) {
  if (l.file.empty()) l = place(fallback);
  return plan::shown_at(std::move(l), prefix);
}


std::string last_component(std::string_view qualified) {
  const std::size_t at = qualified.rfind("::");
  return std::string(at == std::string_view::npos ? qualified : qualified.substr(at + 2));
}

// Whether `request` may name one of `scanned`'s kernel templates. resolve_requests decides; this
// keeps requests for other sources out of its key and saves a worker where none can match.
bool may_name_template(const scan::RuntimeRequest& request, const ScanResult& scanned) {
  const std::string written = scan::without_unnamed_namespaces(request.name);   // "<unnamed>::k<1>"
  if (request.what != scan::RuntimeRequest::What::kernel || written.find('<') == std::string::npos) return false;
  const std::string name = last_component(plan::template_name(written));
  // Only a source that defines the template can instantiate it.
  for (const scan::Kernel& k : scanned.kernels)
    if (k.is_template && k.defined && last_component(k.qualified_name) == name) return true;
  return false;
}

// A request is sent to every kernel source with a template of its last name ("k<float>" to the one
// that defines ::k and to the one that defines ns::k); a source where it does not resolve says so.
// Where another source resolved it, that warning is noise: the request is recorded. Where none did,
// one warning is enough: the first source's, in manifest order.
void drop_resolved_elsewhere(const std::vector<plan::ScannedFile>& kernel_sources, std::vector<ScanResult>& resolutions) {
  std::set<std::tuple<std::string, int, int>> resolved;
  const auto note = [&](const ScanResult& r) {
    for (const scan::Instantiation& i : r.instantiations)
      if (i.found_by == scan::FoundBy::runtime_request)
        resolved.emplace(i.location.file, i.location.line, i.location.column);
  };
  for (const plan::ScannedFile& file : kernel_sources) note(file.result);
  for (const ScanResult& r : resolutions) note(r);
  std::set<std::tuple<std::string, int, int>> warned;
  for (ScanResult& r : resolutions)
    std::erase_if(r.diagnostics, [&](const scan::Diagnostic& d) {
      const std::tuple<std::string, int, int> at{d.location.file, d.location.line, d.location.column};
      return resolved.count(at) != 0 || !warned.insert(at).second;
    });
}

enum class FileKind { kernel_source, host_source, python_source };

// What a file whose scan failed no longer contributes, for its one warning.
std::string lost_discovery(FileKind kind) {
  switch (kind) {
    case FileKind::kernel_source:
      return "the scan cannot read this source, so what it would find here is lost: kernel template "
             "instantiations launched or taken the address of here, requests to the Kiln runtime here and "
             "the variables declared here (only the manifest's 'variables' keep their names). Its compiler "
             "still decides which kernels it holds";
    case FileKind::host_source:
      return "the scan cannot read this host source, so the requests to the Kiln runtime in it are not discovered";
    case FileKind::python_source:
      return "the scan cannot read this Python source, so the requests to the Kiln binding in it are not discovered";
  }
  return {};
}

void report(const plan::ScannedFile& file, FileKind kind, const std::string& prefix, ScanPhaseOutput& out) {
  if (!file.result.ok()) {
    const auto first = std::find_if(file.result.diagnostics.begin(), file.result.diagnostics.end(),
                                    [](const scan::Diagnostic& d) { return d.severity == scan::Diagnostic::Severity::error; });
    if (first->message.find(k_not_a_regular_file) != std::string::npos && !out.input_error)
      out.input_error = Error(first->message, display(first->location, file.path, prefix), KILN_STATUS_IO_ERROR);
    const std::string parser = kind == FileKind::python_source ? "Python's" : "clang's";
    plan::Finding lost{display({}, file.path, prefix),
                       lost_discovery(kind) + "; " + parser + " first error: " +
                           position_text(display(first->location, file.path, prefix)) + ": " + first->message};
    if (kind == FileKind::kernel_source) out.unreadable_kernel_sources.push_back({file.path, std::move(lost)});
    else out.findings.push_back(std::move(lost));
    ++out.unreadable;
    return;
  }
  for (const scan::Diagnostic& d : file.result.diagnostics)
    out.findings.push_back({display(d.location, file.path, prefix), d.message});
}

// The manifest's python_sources and the --python-source files, each once, read by one Python run.
// Cheap, so first: a missing interpreter stops the build before clang starts.
std::vector<plan::ScannedFile> scan_python(const manifest::Manifest& manifest, const std::vector<fs::path>& extra,
                                           const fs::path& root, const ScanPhaseSettings& settings,
                                           ScanPhaseOutput& out) {
  std::vector<fs::path> files(manifest.python_sources.begin(), manifest.python_sources.end());
  for (const fs::path& given : extra) files.push_back(relative_to_root(given, root));
  std::vector<scan::PythonSource> sources;
  std::set<fs::path> seen;
  for (const fs::path& file : files)
    if (seen.insert(file).second) sources.push_back({file.generic_string(), file.is_absolute() ? file : root / file});
  // Python opens them itself: one that is a FIFO or a device is refused before it could wait on it.
  for (const scan::PythonSource& source : sources) {
    if (platform::FileStatus st; platform::status_of(source.path, st) && !st.is_regular) {
      out.input_error = Error(std::string("cannot read it: it is ") + st.kind + std::string(k_not_a_regular_file),
                              display({}, source.file, settings.display_prefix), KILN_STATUS_IO_ERROR);
      return {};
    }
  }
  Result<std::vector<ScanResult>> results = scan::scan_python_sources(sources, settings.python);
  if (!results) {
    out.environment_error = results.error();
    return {};
  }
  out.python = sources.size();
  std::vector<plan::ScannedFile> scanned;
  for (std::size_t i = 0; i < sources.size(); ++i) scanned.push_back({sources[i].file, std::move((*results)[i])});
  return scanned;
}

}  // namespace

ScanPhaseOutput run_scan_phase(const manifest::Manifest& manifest, const compile::Toolkit& toolkit,
                               const ExtraSources& extra, const ScanPhaseSettings& settings) {
  const fs::path root = fs::absolute(manifest.root).lexically_normal();
  ScanPhaseOutput out;
  std::vector<plan::ScannedFile> python = scan_python(manifest, extra.python, root, settings, out);
  if (out.environment_error || out.input_error) return out;

  std::vector<ScanInput> inputs;
  std::set<fs::path> seen;
  // A source listed as several variants is scanned once, with its first entry's macros, options and
  // include directories.
  for (const manifest::SourceEntry& source : manifest.sources)
    if (seen.insert(source.path).second)
      inputs.push_back(input_for(manifest, &source, source.path, toolkit, settings, ScanInput::Role::kernels));
  const std::size_t kernel_count = inputs.size();
  std::vector<fs::path> hosts(manifest.host_sources.begin(), manifest.host_sources.end());
  for (const fs::path& given : extra.host) hosts.push_back(relative_to_root(given, root));
  for (const fs::path& host : hosts)
    if (seen.insert(host).second)
      inputs.push_back(input_for(manifest, nullptr, host, toolkit, settings, ScanInput::Role::host));

  // Lookups are cheap (hashing files) and happen here; only misses are parsed, in parallel.
  const scan::ScanCache cache(*settings.store);
  std::vector<ScanResult> results(inputs.size());
  std::vector<std::size_t> misses;
  std::vector<bool> skipped(inputs.size(), false);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (i < kernel_count && settings.scans_kernel_source && !settings.scans_kernel_source(inputs[i].file.generic_string())) {
      skipped[i] = true;   // another shard's: nothing found here
      continue;
    }
    if (std::optional<ScanResult> hit = cache.lookup(inputs[i])) {
      results[i] = std::move(*hit);
      ++out.cached;
    } else {
      misses.push_back(i);
    }
  }
  out.scanned = misses.size();
  const auto file_name = [&](std::size_t i) { return inputs[i].file.generic_string(); };
  std::vector<std::size_t> kernel_misses;
  for (const std::size_t i : misses)
    if (i < kernel_count) kernel_misses.push_back(i);
  const std::vector<fs::path> preambles =
      share_preambles(inputs, kernel_misses, {settings.jobs, settings.scratch_dir, "preamble-", settings.jobserver});
  out.preambles = preambles.size();
  for (const std::size_t i : kernel_misses) out.sharing += inputs[i].preamble_pch.empty() ? 0 : 1;
  run_all(misses, settings, "scan-", [&](std::size_t i) { return cache.scan(inputs[i]); }, results, file_name);
  for (const fs::path& pch : preambles) scan::remove_preamble_pch(pch);
  if (settings.publish)
    for (const std::size_t i : misses)
      if (results[i].ok()) (void)cache.lookup(inputs[i]);

  for (std::size_t i = 0; i < inputs.size(); ++i) {
    plan::ScannedFile file{inputs[i].file.generic_string(), std::move(results[i])};
    file.another_shards = skipped[i];
    report(file, i < kernel_count ? FileKind::kernel_source : FileKind::host_source, settings.display_prefix, out);
    (i < kernel_count ? out.kernel_sources : out.host_sources).push_back(std::move(file));
  }
  for (plan::ScannedFile& file : python) {
    report(file, FileKind::python_source, settings.display_prefix, out);
    out.host_sources.push_back(std::move(file));
  }

  // Requests in one file for kernel templates of another kernel source: that source resolves them.
  std::vector<std::vector<scan::RuntimeRequest>> foreign(kernel_count);
  std::vector<std::size_t> unresolved;
  std::vector<ScanResult> resolutions(kernel_count);
  for (std::size_t k = 0; k < kernel_count; ++k) {
    const auto add_requests = [&](const plan::ScannedFile& other) {
      for (const scan::RuntimeRequest& r : other.result.requests)
        if (may_name_template(r, out.kernel_sources[k].result)) foreign[k].push_back(r);
    };
    for (std::size_t i = 0; i < kernel_count; ++i)
      if (i != k) add_requests(out.kernel_sources[i]);
    for (const plan::ScannedFile& host : out.host_sources) add_requests(host);
    if (foreign[k].empty()) continue;
    if (std::optional<scan::Resolution> hit = cache.lookup_resolution(inputs[k], out.kernel_sources[k].result, foreign[k])) {
      resolutions[k].instantiations = std::move(hit->instantiations);
      resolutions[k].diagnostics = std::move(hit->diagnostics);
    } else {
      unresolved.push_back(k);
    }
  }
  run_all(unresolved, settings, "resolve-", [&](std::size_t k) {
    scan::Resolution resolution = cache.resolve(inputs[k], out.kernel_sources[k].result, foreign[k]);
    ScanResult r;
    r.instantiations = std::move(resolution.instantiations);
    r.diagnostics = std::move(resolution.diagnostics);
    return r;
  }, resolutions, file_name);
  out.resolved = unresolved.size();
  if (settings.publish)
    for (const std::size_t k : unresolved)
      (void)cache.lookup_resolution(inputs[k], out.kernel_sources[k].result, foreign[k]);
  drop_resolved_elsewhere(out.kernel_sources, resolutions);
  for (std::size_t k = 0; k < kernel_count; ++k) {
    ScanResult& result = out.kernel_sources[k].result;
    result.instantiations.insert(result.instantiations.end(), resolutions[k].instantiations.begin(),
                                 resolutions[k].instantiations.end());
    plan::ScannedFile resolved{out.kernel_sources[k].path, {}};
    resolved.result.diagnostics = resolutions[k].diagnostics;
    report(resolved, FileKind::kernel_source, settings.display_prefix, out);
    result.diagnostics.insert(result.diagnostics.end(), resolutions[k].diagnostics.begin(),
                              resolutions[k].diagnostics.end());
  }
  return out;
}

}  // namespace kiln::build

#include "build/discovery_phase.hpp"

#include "util/named_roots.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace kiln::build {

namespace fs = std::filesystem;

namespace {

std::string counted(std::size_t count, const std::string& one, const std::string& many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

// "scan: 3 cached, 2 scanned (2 through 1 shared preamble), 11 sources left to nvcc's image, 2 to
// NVRTC's, 0 request resolutions parsed, 1 Python source read (0.42 s)"
std::string scan_detail(const ScanPhaseOutput& scans, std::size_t unread_nvcc, std::size_t unread_nvrtc, double seconds) {
  const std::string python = scans.python ? ", " + counted(scans.python, "Python source", "Python sources") + " read" : "";
  const std::string shared = scans.preambles ? " (" + std::to_string(scans.sharing) + " through " +
                                                   counted(scans.preambles, "shared preamble)", "shared preambles)")
                                             : "";
  std::string image;
  if (unread_nvcc) image = ", " + counted(unread_nvcc, "source", "sources") + " left to nvcc's image";
  if (unread_nvrtc)
    image += unread_nvcc ? ", " + std::to_string(unread_nvrtc) + " to NVRTC's"
                         : ", " + counted(unread_nvrtc, "source", "sources") + " left to NVRTC's image";
  char time[32];
  std::snprintf(time, sizeof time, " (%.2f s)", seconds);
  return "scan: " + std::to_string(scans.cached) + " cached, " + std::to_string(scans.scanned) + " scanned" + shared +
         image + ", " + std::to_string(scans.resolved) + " request resolutions parsed" + python + time;
}

// The headers a host source read that can hold a request: the project's own (under the manifest
// directory or one of its include directories), not the toolkit's, Kiln's or the system's. A
// request added there changes the package, so they are inputs like the host source.
void add_request_headers(const manifest::Manifest& manifest, const compile::Toolkit& toolkit, const fs::path& build_dir,
                         const plan::ScannedFile& host, std::vector<fs::path>& inputs) {
  const fs::path root = fs::absolute(manifest.root).lexically_normal();
  const NamedRoots roots{root, build_dir, {}, toolkit.root};
  std::vector<fs::path> dirs{root};
  for (const std::string& dir : manifest.include_dirs)
    if (!dir.starts_with("<kiln>")) dirs.push_back((root / roots.expand(dir)).lexically_normal());
  const auto inside = [](const fs::path& path, const fs::path& dir) {
    const fs::path relative = path.lexically_relative(dir);
    return !relative.empty() && *relative.begin() != "..";
  };
  const fs::path cuda = fs::absolute(toolkit.root).lexically_normal();
  for (const scan::Header& header : host.result.headers) {
    const fs::path path = (root / header.path).lexically_normal();
    if (inside(path, cuda)) continue;
    for (const fs::path& dir : dirs) {
      if (!inside(path, dir)) continue;
      if (std::find(inputs.begin(), inputs.end(), path) == inputs.end()) inputs.push_back(path);
      break;
    }
  }
}

}  // namespace

DiscoveredBuild discover_sources(const manifest::Manifest& manifest, const compile::Toolkit& toolkit,
                                 const DiscoveryPhaseSettings& settings, BuildEvents& events) {
  const auto start = std::chrono::steady_clock::now();
  DiscoveredBuild found;
  ScanPhaseSettings scan = settings.scan;
  scan.progress = [&](std::size_t done, std::size_t total, const std::string& file) {
    events.step(done, total, "scan " + settings.scan.display_prefix + file);
  };
  const std::set<std::string>& unread = settings.unread;
  if (!unread.empty())
    scan.scans_kernel_source = [&](const std::string& source) {
      return !unread.count(source) && (!settings.scan.scans_kernel_source || settings.scan.scans_kernel_source(source));
    };
  ScanPhaseOutput scans = run_scan_phase(manifest, toolkit, settings.extra, scan);
  events.steps_done();
  for (plan::ScannedFile& file : scans.kernel_sources) {
    file.left_to_the_image = unread.count(file.path) != 0;
    file.another_shards = file.another_shards && !file.left_to_the_image;   // skipped as the image's, not a shard's
  }
  if (scans.environment_error) {
    found.failure = BuildFailure::environment;
    found.error = std::move(*scans.environment_error);
    found.error.message += "; no package written";
    return found;
  }
  if (scans.input_error) {
    found.failure = BuildFailure::bad_input;
    found.error = std::move(*scans.input_error);
    found.error.message += "; no package written";
    return found;
  }
  settings.scan.store->add_counters({{"scan.hits", scans.cached}, {"scan.misses", scans.scanned}});
  const double scan_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const fs::path root = fs::absolute(manifest.root).lexically_normal();
  for (const plan::ScannedFile& host : scans.host_sources) {
    found.request_inputs.push_back((root / host.path).lexically_normal());
    add_request_headers(manifest, toolkit, settings.scan.build_dir, host, found.request_inputs);
  }
  found.asked = asked_kernel_names(manifest, scans.kernel_sources, scans.host_sources, settings.scan.display_prefix);
  found.discovery = plan::discover(manifest, scans.kernel_sources, scans.host_sources,
                                   {settings.scan.display_prefix, toolkit.root, root, settings.project_text});
  std::size_t unread_nvcc = 0;
  for (const std::string& source : unread)
    if (const auto known = found.discovery.sources.find(source); known != found.discovery.sources.end())
      unread_nvcc += known->second.has_host_code ? 1 : 0;
  events.detail(scan_detail(scans, unread_nvcc, unread.size() - unread_nvcc, scan_seconds));
  if (found.discovery.left_to_the_merge)
    events.detail(counted(found.discovery.left_to_the_merge, "runtime request names", "runtime requests name") +
                  " nothing this shard scans, perhaps another shard's units: kiln merge checks " +
                  (found.discovery.left_to_the_merge == 1 ? "it" : "them"));
  if (found.discovery.names_left_to_the_merge)
    events.detail(counted(found.discovery.names_left_to_the_merge, "name", "names") +
                  " of the manifest's 'instantiate' or 'variables' name nothing this shard scans, perhaps another "
                  "shard's units: kiln merge checks " + (found.discovery.names_left_to_the_merge == 1 ? "it" : "them"));
  // A top-level name that names nothing stops the build, as a name no compile finds would (each
  // said once, at its place), with the scan's warnings beside it.
  if (!found.discovery.errors.empty()) {
    for (SourceFinding& unreadable : scans.unreadable_kernel_sources)
      events.warning(WarningSource::scan, plan::render(unreadable.finding, false));
    const std::vector<plan::Finding>& errors = found.discovery.errors;
    for (std::size_t i = 1; i < errors.size(); ++i) events.error(plan::render(errors[i], true));
    found.failure = BuildFailure::bad_input;
    found.error = Error(errors.front().message + (errors.size() > 1 ? " (and the errors above)" : "") +
                            "; no package written",
                        errors.front().where, KILN_STATUS_INVALID_ARGUMENT);
    return found;
  }
  std::vector<plan::Finding> findings = std::move(scans.findings);
  // --strict stops on them here, with the others; else they wait for the compiles (builder.cpp).
  for (SourceFinding& unreadable : scans.unreadable_kernel_sources)
    if (settings.strict) findings.push_back(std::move(unreadable.finding));
    else found.unreadable_kernel_sources.push_back(std::move(unreadable));
  findings.insert(findings.end(), found.discovery.findings.begin(), found.discovery.findings.end());
  for (const plan::Finding& finding : findings) {
    if (settings.strict) events.error(plan::render(finding, true));
    else events.warning(WarningSource::scan, plan::render(finding, false));
  }
  if (settings.strict && !findings.empty()) {
    found.failure = BuildFailure::failed;
    found.error = Error{counted(findings.size(), "finding", "findings") + " of the scan with --strict; no package written"};
  }
  return found;
}

}  // namespace kiln::build

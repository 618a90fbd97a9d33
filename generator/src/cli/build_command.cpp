// kiln build: manifest -> plan -> compile (worker processes) -> assemble -> package file + depfile.
// With --shard I/N it stops after compiling shard I's jobs and writes their part; kiln merge takes
// the parts' images for the compile phase and writes the package the whole build would.
#include "cli/build_report.hpp"
#include "cli/build_store.hpp"
#include "cli/color.hpp"
#include "cli/command.hpp"
#include "cli/compile_phase.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_limit.hpp"
#include "cli/kiln_headers.hpp"
#include "cli/output_guard.hpp"
#include "cli/request_coverage.hpp"
#include "cli/scan_phase.hpp"
#include "cli/shard_phase.hpp"
#include "cli/speculation.hpp"
#include "cli/target_override.hpp"
#include "compile/cached_runner.hpp"
#include "compile/job_runner.hpp"
#include "compile/toolkit.hpp"
#include "format/package_writer.hpp"
#include "manifest/manifest_reader.hpp"
#include "package/assemble.hpp"
#include "package/depfile.hpp"
#include "package/unit_kernels.hpp"
#include "plan/build_plan.hpp"
#include "plan/image_parts.hpp"
#include "plan/nvrtc_reach.hpp"
#include "plan/text_discovery.hpp"
#include "store/cache_settings.hpp"
#include "util/diagnostic.hpp"
#include "util/file_io.hpp"
#include "util/jobserver.hpp"
#include "util/scratch_dir.hpp"
#include "util/scratch_names.hpp"
#include "util/signal_cleanup.hpp"
#include "version.hpp"

#include <unistd.h>

#include <ctime>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <set>
#include <thread>

namespace kiln::cli {

namespace fs = std::filesystem;

namespace {

// A source that defines no kernel (an empty file, a wrong path in a copy) adds nothing to the package.
std::vector<std::string> empty_source_warnings(const plan::BuildPlan& plan, const format::PackageContents& contents,
                                               const std::string& prefix) {
  std::set<std::string> with_kernels;
  for (const format::PackageKernel& kernel : contents.kernels) with_kernels.insert(kernel.unit_source);
  std::vector<std::string> warnings;
  // A link group's member may hold only device functions for the others: only units are checked.
  // An image part after the first may end up with none of its own (its kernels were the first
  // part's too): its source has kernels, in the first part.
  for (const plan::PlannedUnit& unit : plan.units)
    if (unit.members.empty() && unit.part == 0 && !with_kernels.count(unit.name))
      warnings.push_back(prefix + unit.source + ": warning: " +
                         (unit.variant.empty() ? "this source defines" : "variant '" + unit.variant + "' of it has") +
                         " no kernel; it adds nothing to the package");
  return warnings;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// How the manifest directory looks from the current directory: "" or "examples/saxpy/".
std::string display_prefix(const fs::path& root) {
  std::error_code ec;
  const fs::path relative = fs::relative(root, fs::current_path(), ec);
  if (ec || relative.empty()) return root.generic_string() + "/";
  if (relative == ".") return "";
  return relative.generic_string() + "/";
}

enum class BuildMode { build, merge };

class BuildCommand final : public Command {
public:
  explicit BuildCommand(BuildMode mode) : m_mode(mode) {}

  void configure(CLI::App& app) override {
    if (m_mode == BuildMode::merge) {
      app.add_option("parts", m_parts, "The parts to merge: one of each shard of the build")
          ->required()
          ->check(CLI::ExistingFile);
      app.add_option("--manifest", m_manifest, "The manifest the shards built")->capture_default_str();
    } else {
      app.add_option("manifest", m_manifest, "The manifest to build")->capture_default_str();
      app.add_option("--shard", m_shard,
                     "Compile shard I of N of the jobs only, and write them as a part for kiln merge "
                     "(default output: <name>.<I>-of-<N>.kilnpart)");
    }
    app.add_option("-o,--output", m_output, "The package to write (default: <name>.kiln)");
    CLI::Option* depfile = app.add_option("--depfile", m_depfile, "The depfile to write (default: <output>.d)");
    app.add_flag("--no-depfile", m_no_depfile, "Write no depfile")->excludes(depfile);
    app.add_option("-j,--jobs", m_jobs,
                   "Compiles (and scans) to run at once, at most (default: $KILN_JOBS, else as many as make's "
                   "jobserver allows, else the number of cores)")
        ->check(CLI::Range(1, 1024));
    app.add_option("--cuda-root", m_cuda_root, "The CUDA toolkit whose headers to use");
    app.add_option("--root", m_root, "Resolve the manifest's relative paths against DIR, not its directory")
        ->check(CLI::ExistingDirectory);
    app.add_option("--build-dir", m_build_dir,
                   "The build directory: what the manifest's <build> names, and how paths under it are recorded in "
                   "cache keys and the package (default: the output's directory)");
    app.add_option("--targets", m_targets, "Targets to build instead of the manifest's (sm_80,compute_80)")
        ->delimiter(',');
    app.add_option("--host-source", m_host_sources,
                   "A host source to scan for runtime requests, besides the manifest's host_sources (repeatable)")
        ->check(CLI::ExistingFile)
        ->allow_extra_args(false);
    app.add_option("--python-source", m_python_sources,
                   "A Python source to scan for runtime requests, besides the manifest's python_sources (repeatable)")
        ->check(CLI::ExistingFile)
        ->allow_extra_args(false);
    app.add_option("--python", m_python,
                   "The Python interpreter that reads Python sources (default: $KILN_PYTHON, else python3 on PATH)");
    app.add_option("--cache-dir,--scan-cache", m_cache_dir,
                   "The cache directory (default: $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else ~/.cache/kiln)");
    app.add_flag("--strict", m_strict,
                 "Fail instead of warning when the scan cannot read a file or has anything to say");
    CLI::Option* verbose =
        app.add_flag("-v,--verbose", m_verbose, "Show each scan and compile, its options, and the summary line");
    app.add_flag("--summary", m_summary, "Print one line when the package is written (what -v prints last)");
    app.add_flag("-q,--quiet", m_quiet, "Print errors only: no warnings, no progress")->excludes(verbose);
    app.add_flag("--json", m_json, "Print what was built as JSON on stdout (diagnostics stay on stderr)");
  }

  int run() override {
    const int code = build();
    if (code != k_exit_ok && m_json)
      std::cout << printed_json(failed_build_report(code, m_facts.output, m_facts.warnings)) << "\n";
    return code;
  }

private:
  Verbosity verbosity() const {
    return m_quiet ? Verbosity::quiet : m_verbose ? Verbosity::verbose : Verbosity::normal;
  }

  // Prints `text` (a whole diagnostic, "file: warning: ...") unless -q, and keeps it for --json.
  void warn(const std::string& text) {
    m_facts.warnings.push_back(text);
    if (!m_quiet) std::cerr << text << "\n";
  }

  int build() {
    const auto start = std::chrono::steady_clock::now();
    // KILN_STRICT=1 is --strict for builds a user does not start by hand (pip, CI): a wheel's build
    // hides kiln's output unless it fails, so a warning there must be able to fail it.
    if (Status s = strict_from_environment(); !s) return fail(k_exit_usage, s.error().message);
    struct timespec build_start {};
    clock_gettime(CLOCK_REALTIME, &build_start);
    Result<manifest::Manifest> manifest = manifest::read_manifest(m_manifest, m_root);
    // Already in the compiler's format: "kiln.toml:3:12: error: ...", one per line.
    if (!manifest) {
      std::cerr << manifest.error().message << "\n";
      return k_exit_bad_input;
    }
    if (Status s = override_targets(*manifest, m_targets); !s) return fail(k_exit_usage, s.error().message);
    std::optional<shard::ShardSpec> shard;
    if (!m_shard.empty()) {
      Result<shard::ShardSpec> spec = shard::parse_shard(m_shard);
      if (!spec) return fail(k_exit_usage, spec.error().message);
      shard = *spec;
    }
    std::vector<shard::NamedPart> parts;
    if (m_mode == BuildMode::merge) {
      Result<std::vector<shard::NamedPart>> read = read_parts(m_parts);
      if (!read) return fail(k_exit_bad_input, read.error().message + "; no package written");
      parts = std::move(*read);
    }
    const fs::path output = !m_output.empty() ? m_output
                            : shard        ? fs::path(default_part_name(manifest->name, *shard))
                                           : fs::path(manifest->name + ".kiln");
    const fs::path depfile = m_no_depfile          ? fs::path()
                             : m_depfile.empty() ? fs::path(output.string() + ".d")
                                                 : m_depfile;
    m_facts.output = output.string();
    m_facts.depfile = depfile.string();
    const std::string prefix = display_prefix(manifest->root);
    if (Status s = check_outputs({output, depfile}, known_inputs(*manifest, prefix, m_host_sources, m_python_sources));
        !s)
      return fail(k_exit_usage, s.error().message);
    Result<compile::Toolkit> toolkit = compile::find_toolkit(m_cuda_root);
    if (!toolkit) return fail(k_exit_environment, toolkit.error().message);
    Result<store::CacheSettings> cache = store::cache_settings(m_cache_dir, store::process_environment());
    if (!cache) return fail(k_exit_usage, cache.error().message);

    cleanup::install_signal_handlers();
    remove_stale_scratch(output);
    if (!depfile.empty()) remove_stale_scratch(depfile);
    Result<ScratchDir> scratch = ScratchDir::create(output);
    if (!scratch) return fail(k_exit_environment, scratch.error().message);

    // Lives until the build returns: its destructor gives back any token still held (job_limit.hpp).
    std::string jobserver_warning;
    const std::unique_ptr<Jobserver> jobserver = Jobserver::from_environment(jobserver_warning);
    if (!jobserver_warning.empty()) warn(jobserver_warning);
    const Result<JobLimit> limit =
        job_limit(m_jobs, std::getenv("KILN_JOBS"), jobserver != nullptr, std::thread::hardware_concurrency());
    if (!limit) return fail(k_exit_usage, limit.error().message);
    if (m_verbose) std::cerr << describe(*limit, jobserver != nullptr) << "\n";
    const int jobs = limit->jobs;
    Result<BuildStores> stores =
        open_build_stores(*cache, store::process_environment(), [this](const std::string& text) { warn(text); });
    if (!stores) return fail(k_exit_usage, stores.error().message);
    // What <build> and <kiln> stand for, in the manifest, cache keys and entries and the package.
    const fs::path output_dir = output.parent_path().empty() ? fs::path(".") : output.parent_path();
    const fs::path build_dir = fs::absolute(m_build_dir.empty() ? output_dir : m_build_dir).lexically_normal();
    const plan::PlanSettings plan_settings{prefix, scratch->path(), build_dir, kiln_include_dir()};
    compile::CacheContext context{toolkit->root,
                                  compile::toolchain_identity(toolkit->root, toolkit->nvrtc_version(),
                                                              toolkit->nvjitlink_version(), k_version),
                                  compile::nvcc_toolchain_identity, build_start, {}, build_dir, kiln_include_dir()};
    // Shards and merges agree on the build before anything is scanned: a shard scans its own units only.
    PartToWrite part{shard.value_or(shard::ShardSpec{}), k_version, context.toolchain, {}, 0};
    std::set<std::string> shard_sources;
    if (shard || !parts.empty()) {
      Result<shard::ShardLayout> layout =
          shard::shard_layout(*manifest, *toolkit, plan_settings, context, shard.value_or(shard::ShardSpec{1, 1}));
      if (!layout) return fail(k_exit_bad_input, layout.error().message);
      part.fingerprint = layout->fingerprint;
      part.plan_jobs = layout->jobs;
      shard_sources = std::move(layout->sources);
    }
    if (!parts.empty()) {
      if (Status s = shard::check_plan(parts, context.toolchain, part.fingerprint, m_manifest); !s)
        return fail(k_exit_bad_input, s.error().message + "; no package written");
    }

    // Sources whose image alone says what they hold are left unread by the scan (plan/text_discovery.hpp).
    m_unread = left_to_the_image(*manifest);
    // Compiles while the scan runs (speculation.hpp), in the job slots the scan leaves; not for shards
    // and merges, whose jobs the parts decide, nor with a remote cache, which would be asked twice
    // for each job (a fleet's cache mostly holds them: the compiles would be spent for nothing).
    const int early_jobs = shard || !parts.empty() || stores->remote
                               ? 0
                               : slots_beside_the_scan(*manifest, jobs, jobserver != nullptr);
    const std::unique_ptr<Speculation> speculation =
        early_jobs == 0 ? nullptr
                        : Speculation::start(*manifest, *toolkit,
                                             {scratch->path(), prefix, early_jobs, jobserver.get(), &stores->shared(), context});

    int scan_exit = k_exit_ok;
    const auto scan_start = std::chrono::steady_clock::now();
    ScanPhaseSettings scan_settings;
    scan_settings.store = &stores->shared();
    scan_settings.scratch_dir = scratch->path();
    scan_settings.jobs = std::max(1, jobs - early_jobs);
    scan_settings.jobserver = jobserver.get();
    scan_settings.display_prefix = prefix;
    scan_settings.build_dir = build_dir;
    scan_settings.python = m_python;
    scan_settings.publish = stores->remote != nullptr;
    if (shard) scan_settings.scans_kernel_source = [&](const std::string& s) { return shard_sources.count(s) != 0; };
    const std::optional<plan::Discovery> discovery = scan_sources(*manifest, *toolkit, scan_settings, scan_exit);
    m_facts.scan_seconds = seconds_since(scan_start);
    if (!discovery) return scan_exit;

    Result<plan::BuildPlan> plan = plan::make_plan(*manifest, *toolkit, plan_settings, *discovery);
    if (!plan) return fail(k_exit_bad_input, plan.error().message);
    if (m_verbose)
      for (const std::string& line : plan::describe_parts(plan->units)) std::cerr << line << "\n";

    std::unique_ptr<compile::JobRunner> compiler =
        jobs == 1 ? compile::make_in_process_runner(scratch->path())
                  : compile::make_process_runner(jobs, scratch->path(), jobserver.get());
    const compile::CacheContext part_context = context;
    // A shard records the entries of its jobs; a merge reads the parts' entries and compiles nothing.
    shard::RecordingStore recorded(stores->shared());
    shard::PartsStore from_parts(merged_entries(parts));
    store::Store& compile_store =
        !parts.empty() ? static_cast<store::Store&>(from_parts) : shard ? recorded : stores->shared();
    std::vector<std::string> part_files;
    for (const shard::NamedPart& p : parts) part_files.push_back(p.file);
    const std::unique_ptr<compile::JobRunner> refusing =
        parts.empty() ? nullptr : shard::make_refusing_runner(shard::assign_shards(*plan, parts.size()), part_files);
    compile::CompileCache compile_cache(compile_store, std::move(context));
    compile::CacheCounts counts;
    // Successes, and NVRTC's verdict that it cannot take a source: the next build goes to nvcc at once.
    // For a unit that names a header NVRTC lacks, compile_plan keeps it instead, once per unit, by
    // content and with the unit's headers (plan/nvrtc_reach.hpp).
    const auto keep = [](const compile::CompileJob& job, const compile::CompileOutput& out) {
      return out.ok || (job.compiler == compile::Compiler::nvrtc && job.members.empty() && nvrtc_cannot_compile(out.log) &&
                        !plan::includes_beyond_nvrtc(job));
    };
    // A hit must read as the package will read it (else it is compiled): an entry Kiln cannot parse
    // never fails a build. A link group alone may have no image for a target (link_group.hpp).
    const auto usable = [](const compile::CompileJob& job, const compile::CompileOutput& out) {
      if (!out.ok || (out.image.empty() && !job.members.empty())) return true;
      return package::image_reads({job.target, out.image});
    };
    const auto compile_start = std::chrono::steady_clock::now();
    if (speculation) speculation->finish();
    const std::unique_ptr<compile::JobRunner> speculated = speculation ? speculation->runner(*compiler) : nullptr;
    compile::JobRunner& compiles = !parts.empty() ? *refusing : speculated ? *speculated : *compiler;
    const std::unique_ptr<compile::JobRunner> cached =
        compile::make_cached_runner(compiles, compile_cache, keep, usable, counts);
    const std::unique_ptr<compile::JobRunner> runner =
        shard ? shard::make_shard_runner(*cached, shard::assign_shards(*plan, shard->count), shard->index)
              : std::unique_ptr<compile::JobRunner>();
    std::vector<std::string> compile_warnings;
    const std::optional<std::vector<compile::CompileOutput>> outputs =
        compile_plan(*plan, runner ? *runner : *cached, verbosity(), compile_warnings, &compile_cache);
    m_facts.warnings.insert(m_facts.warnings.end(), compile_warnings.begin(), compile_warnings.end());
    m_facts.compile_seconds = seconds_since(compile_start);
    stores->shared().add_counters({{"compile.hits", counts.hits}, {"compile.misses", counts.misses}});
    if (m_verbose)
      std::fprintf(stderr, "compile: %zu cached, %zu compiled (%zu while the scan ran)\n", counts.hits, counts.misses,
                   speculation ? speculation->taken() : std::size_t{0});
    if (const std::string remote = remote_summary(stores->shared()); m_verbose && !remote.empty()) std::cerr << remote << "\n";
    if (!outputs) return k_exit_failed;
    if (shard) return finish_shard(output, part, *plan, part_context, recorded.take_entries(), start);

    Result<package::AssembledPackage> assembled =
        package::assemble(*manifest, *plan, *outputs, *toolkit, {prefix, k_version});
    if (!assembled) return fail(k_exit_failed, assembled.error().message + "; no package written");
    // Host and Python sources are inputs too: a new request there changes the package.
    assembled->inputs.insert(assembled->inputs.end(), m_scanned_hosts.begin(), m_scanned_hosts.end());
    // Located warnings (at a manifest entry) are already in the compilers' format.
    for (const std::string& warning : assembled->warnings)
      warn(is_diagnostic(warning) ? warning : "kiln: warning: " + warning);
    for (const std::string& warning : empty_source_warnings(*plan, assembled->contents, prefix)) warn(warning);
    // Fewer kernels than asked for is said once, whatever dropped them; --strict refuses the package.
    if (const std::optional<std::string> short_of = unanswered_names(m_asked, assembled->contents)) {
      if (m_strict) return fail(k_exit_failed, *short_of + " (--strict); no package written");
      warn("kiln: warning: " + *short_of);
    }
    // Headers are known only now: none may be an output either.
    if (Status s = check_outputs({output, depfile}, read_inputs(assembled->inputs)); !s)
      return fail(k_exit_usage, s.error().message);

    // Before anything is written: a name a depfile cannot hold fails the build, not the depfile alone.
    const Result<std::string> deps = depfile.empty() ? Result<std::string>(std::string())
                                                     : package::depfile_text(output, assembled->inputs);
    if (!deps) return fail(k_exit_bad_input, deps.error().message + "; nothing written (--no-depfile writes no depfile)");

    format::WriteOptions options;
    options.compress = manifest->compress;
    const format::WriteResult written = format::write_package(assembled->contents, options);
    if (!written.error.empty()) return fail(k_exit_failed, written.error + "; no package written");
    if (Status s = write_file_atomically(output, written.bytes); !s) return fail(k_exit_environment, s.error().message);
    if (!depfile.empty()) {
      if (Status s = write_file_atomically(depfile, std::as_bytes(std::span(*deps))); !s)
        return fail(k_exit_environment, s.error().message);
    }

    m_facts.kernels = assembled->contents.kernels.size();
    m_facts.bytes = written.bytes.size();
    m_facts.total_seconds = seconds_since(start);
    // Silent on success, as ninja is; the line is for who asks.
    if (m_verbose || m_summary) std::cerr << summary_line(m_facts, *plan) << "\n";
    // Warnings scroll by in a long build log (and pip shows its build's output only with -v): one
    // last line counts them and says how to make them fail the build.
    if (!m_quiet && !m_facts.warnings.empty())
      std::cerr << "kiln: " << output.string() << ": " << m_facts.warnings.size()
                << (m_facts.warnings.size() == 1 ? " warning" : " warnings")
                << " (above); with --strict (KILN_STRICT=1) the scan's findings fail the build\n";
    if (m_json) std::cout << printed_json(build_report(m_facts, *plan, *outputs)) << "\n";
    return k_exit_ok;
  }

  int finish_shard(const fs::path& output, const PartToWrite& part, const plan::BuildPlan& plan,
                   const compile::CacheContext& context, shard::Entries entries,
                   std::chrono::steady_clock::time_point start) {
    const std::size_t count = entries.size();
    if (Status s = write_part(output, part, plan, context, std::move(entries)); !s)
      return fail(k_exit_failed, s.error().message);
    if (m_verbose || m_summary)
      std::cerr << "kiln: wrote " << output.string() << ": shard " << part.spec.index << " of " << part.spec.count
                << ", " << count << " of the build's " << plan.jobs.size() << " images, in "
                << std::to_string(seconds_since(start)).substr(0, 4) << " s\n";
    return k_exit_ok;
  }

  // Scans every source (through the cache), prints what the scanner and discovery have to say, and
  // returns what the units must build; nothing, with the exit code, when the Python interpreter cannot
  // run, or with --strict when they have anything to say. A file that does not parse is a warning.
  std::optional<plan::Discovery> scan_sources(const manifest::Manifest& manifest, const compile::Toolkit& toolkit,
                                              const ScanPhaseSettings& settings, int& exit_code) {
    const auto start = std::chrono::steady_clock::now();
    Progress progress(verbosity());
    ScanPhaseSettings with_progress = settings;
    with_progress.progress = [&](std::size_t done, std::size_t total, const std::string& file) {
      progress.step(done, total, "scan " + settings.display_prefix + file);
    };
    const std::set<std::string>& unread = m_unread;
    if (!unread.empty())
      with_progress.scans_kernel_source = [&](const std::string& source) {
        return !unread.count(source) && (!settings.scans_kernel_source || settings.scans_kernel_source(source));
      };
    ScanPhaseOutput scans = run_scan_phase(manifest, toolkit, {m_host_sources, m_python_sources}, with_progress);
    progress.close();
    for (plan::ScannedFile& file : scans.kernel_sources) file.left_to_the_image = unread.count(file.path) != 0;
    if (!scans.environment_error.empty()) {
      exit_code = fail(k_exit_environment, scans.environment_error + "; no package written");
      return std::nullopt;
    }
    if (!scans.input_error.empty()) {
      exit_code = fail(k_exit_bad_input, scans.input_error + "; no package written");
      return std::nullopt;
    }
    settings.store->add_counters({{"scan.hits", scans.cached}, {"scan.misses", scans.scanned}});
    if (m_verbose) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const std::string python =
          scans.python ? ", " + std::to_string(scans.python) + (scans.python == 1 ? " Python source" : " Python sources") +
                             " read"
                       : "";
      const std::string shared =
          scans.preambles ? " (" + std::to_string(scans.sharing) + " through " + std::to_string(scans.preambles) +
                                (scans.preambles == 1 ? " shared preamble)" : " shared preambles)")
                          : "";
      const std::string image = unread.empty() ? ""
                                : ", " + std::to_string(unread.size()) +
                                      (unread.size() == 1 ? " source" : " sources") + " left to nvcc's image";
      std::fprintf(stderr, "scan: %zu cached, %zu scanned%s%s, %zu request resolutions parsed%s (%.2f s)\n", scans.cached,
                   scans.scanned, shared.c_str(), image.c_str(), scans.resolved, python.c_str(), seconds);
    }
    const fs::path root = fs::absolute(manifest.root).lexically_normal();
    for (const plan::ScannedFile& host : scans.host_sources) {
      m_scanned_hosts.push_back((root / host.path).lexically_normal());
      add_request_headers(manifest, toolkit, settings.build_dir, host);
    }
    m_asked = asked_kernel_names(manifest, scans.kernel_sources, scans.host_sources, settings.display_prefix);
    plan::Discovery discovery =
        plan::discover(manifest, scans.kernel_sources, scans.host_sources,
                       {settings.display_prefix, toolkit.root, root});
    std::vector<plan::Finding> findings = std::move(scans.findings);
    findings.insert(findings.end(), discovery.findings.begin(), discovery.findings.end());
    for (const plan::Finding& finding : findings) {
      if (m_strict) std::cerr << plan::render(finding, m_strict) << "\n";   // errors, even with -q
      else warn(plan::render(finding, m_strict));
    }
    if (m_strict && !findings.empty()) {
      exit_code = fail(k_exit_failed, std::to_string(findings.size()) + (findings.size() == 1 ? " finding" : " findings") +
                                          " of the scan with --strict; no package written");
      return std::nullopt;
    }
    return discovery;
  }

  // How many of the build's `jobs` slots compile while the scan runs: all of them when nothing is left
  // to parse; else one slot per file to parse, keeping one at least for the compiles; none with one
  // slot and something to parse. None under make's jobserver: the scan and the early compiles would each run one worker on
  // the build's own token, one more than make lent.
  int slots_beside_the_scan(const manifest::Manifest& manifest, int jobs, bool jobserver) const {
    if (jobserver) return 0;
    std::set<std::string> parsed(manifest.host_sources.begin(), manifest.host_sources.end());
    for (const manifest::SourceEntry& source : manifest.sources)
      if (!m_unread.count(source.path)) parsed.insert(source.path);
    const std::size_t to_parse = parsed.size() + m_host_sources.size();
    if (to_parse == 0) return jobs;
    if (jobs == 1) return 0;
    return jobs - static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(jobs - 1), to_parse));
  }

  // The kernel sources the scan may leave unread: every entry of theirs lets the image decide.
  std::set<std::string> left_to_the_image(const manifest::Manifest& manifest) const {
    std::set<std::string> decided, asked;
    const bool extra = !m_host_sources.empty() || !m_python_sources.empty();
    for (const manifest::SourceEntry& source : manifest.sources) {
      const std::optional<std::string> text = read_text_file(manifest.root / source.path);
      if (text && plan::image_decides(manifest, source, plan::code_only(*text), m_strict, extra)) decided.insert(source.path);
      else asked.insert(source.path);
    }
    for (const std::string& path : asked) decided.erase(path);
    return decided;
  }

  // The headers a host source read that can hold a request: the project's own (under the manifest
  // directory or one of its include directories), not the toolkit's, Kiln's or the system's. A
  // request added there changes the package, so they are inputs like the host source.
  void add_request_headers(const manifest::Manifest& manifest, const compile::Toolkit& toolkit,
                           const fs::path& build_dir, const plan::ScannedFile& host) {
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
        if (std::find(m_scanned_hosts.begin(), m_scanned_hosts.end(), path) == m_scanned_hosts.end())
          m_scanned_hosts.push_back(path);
        break;
      }
    }
  }

  Status strict_from_environment() {
    const char* value = std::getenv("KILN_STRICT");
    if (m_strict || value == nullptr) return Ok{};
    const std::string text = value;
    if (text == "1" || text == "true" || text == "yes" || text == "on") m_strict = true;
    else if (!(text.empty() || text == "0" || text == "false" || text == "no" || text == "off"))
      return Error{"KILN_STRICT='" + text + "': expected 1 (fail on the scan's findings, as --strict) or 0"};
    return Ok{};
  }

  // A message that names its place in a file is printed as it is; others are the command's own.
  static int fail(int code, const std::string& message) {
    std::cerr << (is_diagnostic(message) ? "" : "kiln: error: ") << message << "\n";
    return code;
  }

  std::string m_manifest = "kiln.toml";
  BuildMode m_mode;
  std::vector<fs::path> m_parts;            // kiln merge
  std::string m_shard;                      // --shard I/N
  fs::path m_output;
  fs::path m_depfile;
  bool m_no_depfile = false;
  fs::path m_cuda_root;
  fs::path m_root;
  fs::path m_build_dir;
  std::vector<std::string> m_targets;
  std::vector<fs::path> m_host_sources;
  std::vector<fs::path> m_python_sources;
  std::string m_python;
  fs::path m_cache_dir;
  std::vector<AskedName> m_asked;           // kernel names the manifest and scanned files ask for
  std::vector<fs::path> m_scanned_hosts;   // host and Python sources and their headers, absolute, for the depfile
  std::set<std::string> m_unread;          // kernel sources left to nvcc's image (plan/text_discovery.hpp)
  int m_jobs = 0;
  bool m_strict = false;
  bool m_verbose = false;
  bool m_summary = false;
  bool m_quiet = false;
  bool m_json = false;
  BuildFacts m_facts;
};

}  // namespace

std::unique_ptr<Command> make_build_command() { return std::make_unique<BuildCommand>(BuildMode::build); }
std::unique_ptr<Command> make_merge_command() { return std::make_unique<BuildCommand>(BuildMode::merge); }

}  // namespace kiln::cli

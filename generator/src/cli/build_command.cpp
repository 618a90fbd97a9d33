// kiln build and kiln merge on the command line: options into a BuildRequest for the Builder
// (build/builder.hpp), its events onto stderr, its result into an exit code, the summary line and
// the --json report. With --shard I/N the build compiles shard I's jobs only and writes their part;
// kiln merge takes the parts' images and writes the package the whole build would.
#include "cli/build_report.hpp"
#include "cli/color.hpp"
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/job_limit.hpp"
#include "cli/progress.hpp"
#include "cli/resource_notes.hpp"
#include "build/builder.hpp"
#include "shard/shard_plan.hpp"
#include "util/diagnostic.hpp"
#include "util/jobserver.hpp"

#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

namespace kiln::cli {

namespace fs = std::filesystem;

namespace {

// The build's events on stderr, as much as the verbosity shows; progress as ninja shows it.
class PrintedEvents final : public build::BuildEvents {
public:
  explicit PrintedEvents(Verbosity verbosity) : m_verbosity(verbosity), m_progress(verbosity) {}
  void warning(build::WarningSource, const std::string& text) override {
    if (m_verbosity != Verbosity::quiet) std::cerr << text << "\n";
  }
  void error(const std::string& text) override { std::cerr << text << "\n"; }
  void detail(const std::string& text) override {
    if (m_verbosity == Verbosity::verbose) std::cerr << text << "\n";
  }
  void step(std::size_t done, std::size_t total, const std::string& what) override { m_progress.step(done, total, what); }
  void compiled(std::size_t done, std::size_t total, const compile::CompileJob& job, const compile::CompileOutput& out,
                bool retried) override {
    m_progress.finished(done, total, job, out, retried);
  }
  void steps_done() override { m_progress.close(); }

private:
  Verbosity m_verbosity;
  Progress m_progress;
};

int exit_code(build::BuildFailure failure) {
  switch (failure) {
    case build::BuildFailure::none: return k_exit_ok;
    case build::BuildFailure::usage: return k_exit_usage;
    case build::BuildFailure::bad_input: return k_exit_bad_input;
    case build::BuildFailure::environment: return k_exit_environment;
    case build::BuildFailure::failed: return k_exit_failed;
  }
  return k_exit_internal;
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
      app.add_option("--shard-times", m_shard_times,
                     "With --shard: cut the shards by the compile times in FILE (--write-times writes it); give "
                     "every shard the same file")
          ->check(CLI::ExistingFile);
    }
    app.add_option("--write-times", m_write_times,
                   "Write how long each job's compile took (a cache hit: when it was compiled) to FILE, for "
                   "--shard-times");
    app.add_option("-o,--output", m_output, "The package to write (default: <name>.kiln)");
    CLI::Option* depfile = app.add_option("--depfile", m_depfile, "The depfile to write (default: <output>.d)");
    app.add_flag("--no-depfile", m_no_depfile, "Write no depfile")->excludes(depfile);
    app.add_option("--compile-commands", m_compile_commands,
                   "Write the kernel sources' compile commands to FILE, a JSON compilation database for clangd "
                   "and clang-tidy (rewritten only when they change)");
    app.add_option("-j,--jobs", m_jobs,
                   "Compiles (and scans) to run at once, at most (default: $KILN_JOBS, else as many as make's "
                   "jobserver allows, else the number of cores)")
        ->check(CLI::Range(1, 1024));
    app.add_option("--cuda-root", m_cuda_root, "The CUDA toolkit whose headers to use");
    app.add_option("--add", m_additions,
                   "Add the names of a manifest fragment (kiln harvest writes one) to the manifest's sources of "
                   "the same path; its paths are relative to the manifest's directory (repeatable)")
        ->check(CLI::ExistingFile)
        ->allow_extra_args(false);
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
    app.add_option("--host-std", m_host_standard,
                   "The C++ standard host sources are parsed at, as their own build compiles them (default: the "
                   "kernels' -std); raised to c++17, which <kiln/kiln.hpp> needs")
        ->check(CLI::IsMember({"c++98", "c++03", "c++11", "c++14", "c++17", "c++20", "c++23", "c++26"}));
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
    std::string output;
    std::vector<std::string> warnings;
    std::vector<build::WarningSource> sources;   // whose each warning is
    const int code = build(output, warnings, sources);
    if (code != k_exit_ok && m_json) std::cout << printed_json(failed_build_report(code, output, warnings)) << "\n";
    return code;
  }

private:
  Verbosity verbosity() const {
    return m_quiet ? Verbosity::quiet : m_verbose ? Verbosity::verbose : Verbosity::normal;
  }

  int build(std::string& output, std::vector<std::string>& warnings, std::vector<build::WarningSource>& sources) {
    // KILN_STRICT=1 is --strict for builds a user does not start by hand (pip, CI): a wheel's build
    // hides kiln's output unless it fails, so a warning there must be able to fail it.
    if (Status s = strict_from_environment(); !s) return fail(k_exit_usage, s.error());
    build::BuildRequest request;
    request.manifest = m_manifest;
    request.root = m_root;
    request.additions = m_additions;
    request.targets = m_targets;
    if (!m_shard.empty()) {
      Result<shard::ShardSpec> spec = shard::parse_shard(m_shard);
      if (!spec) return fail(k_exit_usage, spec.error());
      request.shard = *spec;
    }
    if (!m_shard_times.empty() && !request.shard)
      return fail(k_exit_usage, Error{"--shard-times " + m_shard_times.string() + ": only with --shard I/N"});
    request.shard_times = m_shard_times;
    request.write_times = m_write_times;
    request.parts = m_parts;
    request.output = m_output;
    request.depfile = m_depfile;
    request.write_depfile = !m_no_depfile;
    request.compile_commands = m_compile_commands;
    request.build_dir = m_build_dir;
    request.cuda_root = m_cuda_root;
    request.host_sources = m_host_sources;
    request.host_standard = m_host_standard;
    request.python_sources = m_python_sources;
    request.python = m_python;
    request.cache_dir = m_cache_dir;
    request.strict = m_strict;

    PrintedEvents events(verbosity());
    // Lives until the build returns: its destructor gives back any token still held (job_limit.hpp).
    Result<std::unique_ptr<Jobserver>> named = Jobserver::from_environment();
    if (!named) {
      const std::string warning =
          diagnostic(Location{}, "warning", named.error().message + "; ignoring the jobserver MAKEFLAGS names");
      warnings.push_back(warning);
      sources.push_back(build::WarningSource::kiln);
      events.warning(build::WarningSource::kiln, warning);
    }
    const std::unique_ptr<Jobserver> jobserver = named ? std::move(*named) : nullptr;
    const Result<JobLimit> limit =
        job_limit(m_jobs, std::getenv("KILN_JOBS"), jobserver != nullptr, std::thread::hardware_concurrency());
    if (!limit) return fail(k_exit_usage, limit.error());
    events.detail(describe(*limit, jobserver != nullptr));
    request.jobs = limit->jobs;
    request.jobserver = jobserver.get();

    build::BuildResult result = build::Builder(events).run(request);
    output = result.output.string();
    warnings.insert(warnings.end(), result.warnings.begin(), result.warnings.end());
    sources.insert(sources.end(), result.warning_sources.begin(), result.warning_sources.end());
    if (!result.ok()) {
      std::cerr << result.error << "\n";
      return exit_code(result.failure);
    }
    // -Xptxas=-v's report: after the build's warnings, before its closing lines, as a compiler's
    // notes; -q prints errors only.
    if (!m_quiet)
      for (const std::string& note : resource_notes(result.plan.jobs, result.outputs)) std::cerr << note << "\n";
    if (request.shard) {
      if (m_verbose || m_summary) std::cerr << shard_summary_line(result, *request.shard) << "\n";
      return k_exit_ok;
    }
    result.warnings = warnings;
    // Silent on success, as ninja is; the line is for who asks.
    if (m_verbose || m_summary) std::cerr << summary_line(result) << "\n";
    // Warnings scroll by in a long build log (and pip shows its build's output only with -v): one
    // last line counts them by whose they are, and says how to make the scan's fail the build.
    if (!m_quiet && !warnings.empty()) std::cerr << warning_count_line(output, sources) << "\n";
    if (m_json) std::cout << printed_json(build_report(result)) << "\n";
    return k_exit_ok;
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

  static int fail(int code, const Error& error) {
    std::cerr << diagnostic(error) << "\n";
    return code;
  }

  std::string m_manifest = "kiln.toml";
  BuildMode m_mode;
  std::vector<fs::path> m_parts;            // kiln merge
  std::string m_shard;                      // --shard I/N
  fs::path m_shard_times;                   // --shard-times FILE
  fs::path m_write_times;                   // --write-times FILE
  fs::path m_output;
  fs::path m_depfile;
  bool m_no_depfile = false;
  fs::path m_compile_commands;
  fs::path m_cuda_root;
  fs::path m_root;
  std::vector<fs::path> m_additions;
  fs::path m_build_dir;
  std::vector<std::string> m_targets;
  std::vector<fs::path> m_host_sources;
  std::string m_host_standard;
  std::vector<fs::path> m_python_sources;
  std::string m_python;
  fs::path m_cache_dir;
  int m_jobs = 0;
  bool m_strict = false;
  bool m_verbose = false;
  bool m_summary = false;
  bool m_quiet = false;
  bool m_json = false;
};

}  // namespace

std::unique_ptr<Command> make_build_command() { return std::make_unique<BuildCommand>(BuildMode::build); }
std::unique_ptr<Command> make_merge_command() { return std::make_unique<BuildCommand>(BuildMode::merge); }

}  // namespace kiln::cli

#include "build/builder.hpp"

#include "build/build_store.hpp"
#include "build/compile_database.hpp"
#include "build/compile_phase.hpp"
#include "build/discovery_phase.hpp"
#include "build/kiln_headers.hpp"
#include "build/output_guard.hpp"
#include "build/scan_scope.hpp"
#include "build/shard_phase.hpp"
#include "build/speculation.hpp"
#include "build/target_override.hpp"
#include "compile/cached_runner.hpp"
#include "compile/job_runner.hpp"
#include "compile/toolkit.hpp"
#include "writer/package_writer.hpp"
#include "manifest/fragment_reader.hpp"
#include "manifest/manifest_reader.hpp"
#include "package/assemble.hpp"
#include "package/depfile.hpp"
#include "package/unit_kernels.hpp"
#include "plan/image_parts.hpp"
#include "plan/nvrtc_reach.hpp"
#include "plan/text_discovery.hpp"
#include "shard/compile_times.hpp"
#include "store/cache_settings.hpp"
#include "util/diagnostic.hpp"
#include "util/file_io.hpp"
#include "util/same_file.hpp"
#include "util/scratch_dir.hpp"
#include "util/scratch_names.hpp"
#include "util/signal_cleanup.hpp"
#include "version.hpp"

#include <ctime>

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>
#include <span>

namespace kiln::build {

namespace fs = std::filesystem;

namespace {

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

// A source that defines no kernel (an empty file, a wrong path in a copy) adds nothing to the package.
std::vector<plan::Finding> empty_source_warnings(const plan::BuildPlan& plan, const format::PackageContents& contents,
                                                 const std::string& prefix) {
  std::set<std::string> with_kernels;
  for (const format::PackageKernel& kernel : contents.kernels) with_kernels.insert(kernel.unit_source);
  std::vector<plan::Finding> warnings;
  // A link group's member may hold only device functions for the others: only units are checked.
  // An image part after the first may end up with none of its own (its kernels were the first
  // part's too): its source has kernels, in the first part.
  for (const plan::PlannedUnit& unit : plan.units)
    if (unit.members.empty() && unit.part == 0 && !with_kernels.count(unit.name))
      warnings.push_back({place(prefix + unit.source),
                          (unit.variant.empty() ? "this source defines" : "variant '" + unit.variant + "' of it has") +
                              std::string(" no kernel; it adds nothing to the package")});
  return warnings;
}

// Passes every event on, and keeps the warnings for the result.
class RecordedEvents final : public BuildEvents {
public:
  RecordedEvents(BuildEvents& inner, BuildResult& result) : m_inner(inner), m_result(result) {}
  void warning(WarningSource source, const std::string& text) override {
    m_result.warnings.push_back(text);
    m_result.warning_sources.push_back(source);
    m_inner.warning(source, text);
  }
  void error(const std::string& text) override { m_inner.error(text); }
  void detail(const std::string& text) override { m_inner.detail(text); }
  void step(std::size_t done, std::size_t total, const std::string& what) override { m_inner.step(done, total, what); }
  void compiled(std::size_t done, std::size_t total, const compile::CompileJob& job, const compile::CompileOutput& out,
                bool retried) override {
    if (!out.ok && !retried) {
      m_failed_sources.insert(job.source);
      for (const compile::CompileJob& member : job.members) m_failed_sources.insert(member.source);
    }
    m_inner.compiled(done, total, job, out, retried);
  }
  void steps_done() override { m_inner.steps_done(); }
  // The sources (as the manifest names them) of the compiles that failed for good.
  const std::set<std::string>& failed_sources() const { return m_failed_sources; }

private:
  BuildEvents& m_inner;
  BuildResult& m_result;
  std::set<std::string> m_failed_sources;
};

// Successes, and NVRTC's verdict that it cannot take a source: the next build goes to nvcc at once.
// For a unit that names a header NVRTC lacks, compile_plan keeps it instead, once per unit, by
// content and with the unit's headers (plan/nvrtc_reach.hpp).
bool worth_keeping(const compile::CompileJob& job, const compile::CompileOutput& out) {
  return out.ok || (job.compiler == compile::Compiler::nvrtc && job.members.empty() && nvrtc_cannot_compile(out.log) &&
                    !plan::includes_beyond_nvrtc(job));
}

// A hit must read as the package will read it (else it is compiled): an entry Kiln cannot parse
// never fails a build. A link group alone may have no image for a target (link_group.hpp).
bool usable_hit(const compile::CompileJob& job, const compile::CompileOutput& out) {
  if (!out.ok || (out.image.empty() && !job.members.empty())) return true;
  return package::image_reads({job.target, out.image});
}

// Whether a kernel source's unit shows host code in its text (plan/unit_text.hpp): nvcc compiles it.
bool any_host_code(const manifest::Manifest& manifest, plan::ProjectText& project) {
  return std::any_of(manifest.sources.begin(), manifest.sources.end(), [&](const manifest::SourceEntry& source) {
    const std::optional<plan::UnitTextFacts> unit = project.facts_of(source);
    return unit && unit->host_code;
  });
}

// One run of the build: the request, what it found so far, and the result it fills.
class BuildRun {
public:
  BuildRun(const BuildRequest& request, BuildEvents& events, BuildResult& result)
      : m_request(request), m_result(result), m_events(events, result) {}

  void run();

private:
  // Ends the build with `error`, printed as the command shows it (util/diagnostic.hpp).
  void stop(BuildFailure failure, const Error& error) {
    m_result.failure = failure;
    m_result.error = diagnostic(error);
  }
  // Ends the build with a sentence of Kiln's that no file is at fault for.
  void stop(BuildFailure failure, const std::string& message) { stop(failure, Error{message}); }
  // `error` with what its failure left undone said after it: "...; no package written".
  static Error then(Error error, std::string_view consequence) {
    error.message += consequence;
    return error;
  }
  bool compile_and_write(const manifest::Manifest& manifest, const compile::Toolkit& toolkit, BuildStores& stores,
                         const fs::path& scratch, const std::string& prefix, const struct timespec& build_start);
  bool write_package(const manifest::Manifest& manifest, const compile::Toolkit& toolkit, const std::string& prefix);
  // The kernel sources' compilation database, where the request names one (compile_database.hpp).
  Status write_compile_commands() const {
    if (m_request.compile_commands.empty()) return Ok{};
    return write_if_changed(m_request.compile_commands,
                            database_text(compile_commands(m_result.plan, m_result.output)));
  }
  // Says the warnings of the kernel sources the scan could not read, except for a source whose compile
  // failed: its compiler's errors are the one report of what is wrong there (a typo fails both).
  void say_unreadable_sources() {
    for (const SourceFinding& unreadable : m_found.unreadable_kernel_sources)
      if (!m_events.failed_sources().count(unreadable.source))
        m_events.warning(WarningSource::scan, plan::render(unreadable.finding, false));
    m_found.unreadable_kernel_sources.clear();
  }

  const BuildRequest& m_request;
  BuildResult& m_result;
  RecordedEvents m_events;
  const std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
  DiscoveredBuild m_found;
  std::vector<shard::NamedPart> m_parts;
  PartToWrite m_part;
};

void BuildRun::run() {
  struct timespec build_start {};
  clock_gettime(CLOCK_REALTIME, &build_start);
  Result<manifest::Manifest> manifest = manifest::read_manifest(m_request.manifest, m_request.root);
  // Every error of the manifest, the first one's place in `where` and the others in its log.
  if (!manifest) return stop(BuildFailure::bad_input, manifest.error());
  for (const fs::path& fragment : m_request.additions)
    if (Status s = manifest::add_fragment(*manifest, fragment); !s) return stop(BuildFailure::bad_input, s.error());
  if (Status s = override_targets(*manifest, m_request.targets); !s) return stop(BuildFailure::usage, s.error());
  const std::optional<shard::ShardSpec>& shard = m_request.shard;
  if (!m_request.parts.empty()) {
    Result<std::vector<shard::NamedPart>> read = read_parts(m_request.parts);
    if (!read) return stop(BuildFailure::bad_input, then(read.error(), "; no package written"));
    m_parts = std::move(*read);
  }
  const fs::path& output = m_result.output = !m_request.output.empty() ? m_request.output
                                             : shard ? fs::path(default_part_name(manifest->name, *shard))
                                                     : fs::path(manifest->name + ".kiln");
  const fs::path& depfile = m_result.depfile = !m_request.write_depfile  ? fs::path()
                                               : m_request.depfile.empty() ? fs::path(output.string() + ".d")
                                                                           : m_request.depfile;
  const std::string prefix = display_prefix(manifest->root);
  std::vector<Input> inputs = known_inputs(*manifest, prefix, m_request.host_sources, m_request.python_sources);
  for (const fs::path& fragment : m_request.additions)
    inputs.push_back({fragment, "the --add fragment", fragment.string()});
  if (Status s = check_outputs({output, depfile, m_request.compile_commands}, inputs); !s)
    return stop(BuildFailure::usage, s.error());
  // The compile times are written last, over nothing the build reads or writes.
  inputs.push_back({output, "the output", output.string()});
  if (!depfile.empty()) inputs.push_back({depfile, "the depfile", depfile.string()});
  if (!m_request.compile_commands.empty())
    inputs.push_back({m_request.compile_commands, "the --compile-commands file", m_request.compile_commands.string()});
  if (!m_request.shard_times.empty())
    inputs.push_back({m_request.shard_times, "the --shard-times file", m_request.shard_times.string()});
  for (const Input& input : inputs)
    if (!m_request.write_times.empty() && same_file(m_request.write_times, input.path))
      return stop(BuildFailure::usage, Error{"refusing to write the compile times to " + m_request.write_times.string() +
                                             ": it is " + input.role + " " + input.shown +
                                             "; nothing written (choose another --write-times)"});
  Result<store::CacheSettings> cache = store::cache_settings(m_request.cache_dir, store::process_environment());
  if (!cache) return stop(BuildFailure::usage, cache.error());
  // NVRTC's facts are kept beside the cache: a build that compiles nothing with NVRTC never loads it.
  Result<compile::Toolkit> toolkit =
      compile::find_toolkit(m_request.cuda_root, cache->enabled ? cache->directory : fs::path());
  if (!toolkit) return stop(BuildFailure::environment, toolkit.error());

  cleanup::install_signal_handlers();
  remove_stale_scratch(output);
  if (!depfile.empty()) remove_stale_scratch(depfile);
  Result<ScratchDir> scratch = ScratchDir::create(output);
  if (!scratch) return stop(BuildFailure::environment, scratch.error());
  Result<BuildStores> stores = open_build_stores(*cache, store::process_environment(),
                                                 [this](const std::string& text) {
                                                   m_events.warning(WarningSource::cache, text);
                                                 });
  if (!stores) return stop(BuildFailure::usage, stores.error());
  if (!compile_and_write(*manifest, *toolkit, *stores, scratch->path(), prefix, build_start)) return;
  m_result.total_seconds = seconds_since(m_start);
}

// Scans, plans and compiles (the scan beside the early compiles), then writes the package, or the
// shard's part. False when it stopped.
bool BuildRun::compile_and_write(const manifest::Manifest& manifest, const compile::Toolkit& toolkit,
                                 BuildStores& stores, const fs::path& scratch, const std::string& prefix,
                                 const struct timespec& build_start) {
  const std::optional<shard::ShardSpec>& shard = m_request.shard;
  const bool merge = !m_parts.empty();
  const int jobs = std::max(1, m_request.jobs);
  // What <build> and <kiln> stand for, in the manifest, cache keys and entries and the package.
  const fs::path output_dir = m_result.output.parent_path().empty() ? fs::path(".") : m_result.output.parent_path();
  const fs::path build_dir =
      fs::absolute(m_request.build_dir.empty() ? output_dir : m_request.build_dir).lexically_normal();
  const plan::PlanSettings plan_settings{prefix, scratch, build_dir, kiln_include_dir()};
  compile::CacheContext context{toolkit.root,
                                compile::toolchain_identity(toolkit.root, toolkit.nvrtc_version(),
                                                            toolkit.nvjitlink_version(), k_version),
                                compile::nvcc_toolchain_identity, build_start, {}, build_dir, kiln_include_dir()};
  // Shards and merges agree on the build before anything is scanned: a shard scans its own units only.
  m_part = PartToWrite{shard.value_or(shard::ShardSpec{}), k_version, context.toolchain, {}, 0, {}, {}};
  std::set<std::string> shard_sources;
  // What a shard cuts by: the compile times every shard is given, else the estimate (shard/).
  std::optional<shard::CompileTimes> times;
  if (shard && !m_request.shard_times.empty()) {
    Result<shard::CompileTimes> read = shard::read_times(m_request.shard_times);
    if (!read) return stop(BuildFailure::bad_input, read.error()), false;
    times = std::move(*read);
  }
  const shard::CostOfPlan cost_of = [&](const plan::BuildPlan& p) {
    return times ? shard::timed_cost(p, *times).cost : shard::JobCost(shard::estimated_cost);
  };
  if (shard || merge) {
    Result<shard::ShardLayout> layout = shard::shard_layout(manifest, toolkit, plan_settings, context,
                                                            shard.value_or(shard::ShardSpec{1, 1}), cost_of);
    if (!layout) return stop(BuildFailure::bad_input, layout.error()), false;
    m_part.fingerprint = layout->fingerprint;
    m_part.plan_jobs = layout->jobs;
    shard_sources = std::move(layout->sources);
  }
  if (merge) {
    if (Status s = shard::check_plan(m_parts, context.toolchain, m_part.fingerprint, m_request.manifest.string()); !s)
      return stop(BuildFailure::bad_input, then(s.error(), "; no package written")), false;
  }

  // Sources whose image alone says what they hold are left unread by the scan (plan/text_discovery.hpp).
  const bool extra_sources = !m_request.host_sources.empty() || !m_request.python_sources.empty();
  DiscoveryPhaseSettings discovery_settings;
  plan::ProjectText project_text(manifest, toolkit.root);
  discovery_settings.unread = left_to_the_image(manifest, project_text, m_request.strict, extra_sources);
  discovery_settings.project_text = &project_text;
  // Compiles while the scan runs (speculation.hpp), in the job slots the scan leaves; not for shards
  // and merges, whose jobs the parts decide, nor with a remote cache, which would be asked twice
  // for each job (a fleet's cache mostly holds them: the compiles would be spent for nothing).
  // nvcc's identity (its version and its host compiler's, in every nvcc job's key) is asked once, here:
  // the processes forked below inherit it instead of asking again (two more runs each).
  if (!discovery_settings.unread.empty() || any_host_code(manifest, project_text)) {
    const fs::path nvcc = toolkit.root / "bin" / "nvcc";
    context.nvcc_identities.try_emplace(nvcc.string(), context.nvcc_identity(nvcc));
  }
  const int early_jobs = shard || merge || stores.remote
                             ? 0
                             : slots_beside_the_scan(manifest, discovery_settings.unread, m_request.host_sources.size(),
                                                     jobs, m_request.jobserver != nullptr);
  const std::unique_ptr<Speculation> speculation =
      early_jobs == 0 ? nullptr
                      : Speculation::start(manifest, toolkit,
                                           {scratch, prefix, early_jobs, m_request.jobserver, &stores.shared(), context,
                                            &project_text, discovery_settings.unread});

  const auto scan_start = std::chrono::steady_clock::now();
  ScanPhaseSettings& scan = discovery_settings.scan;
  scan.store = &stores.shared();
  scan.scratch_dir = scratch;
  scan.jobs = std::max(1, jobs - early_jobs);
  scan.jobserver = m_request.jobserver;
  scan.display_prefix = prefix;
  scan.build_dir = build_dir;
  scan.python = m_request.python;
  scan.host_standard = m_request.host_standard;
  scan.publish = stores.remote != nullptr;
  if (shard) scan.scans_kernel_source = [&](const std::string& s) { return shard_sources.count(s) != 0; };
  discovery_settings.extra = {m_request.host_sources, m_request.python_sources};
  discovery_settings.strict = m_request.strict;
  m_found = discover_sources(manifest, toolkit, discovery_settings, m_events);
  m_result.scan_seconds = seconds_since(scan_start);
  if (m_found.failure != BuildFailure::none) return stop(m_found.failure, m_found.error), false;

  Result<plan::BuildPlan> planned = plan::make_plan(manifest, toolkit, plan_settings, m_found.discovery);
  if (!planned) return say_unreadable_sources(), stop(BuildFailure::bad_input, planned.error()), false;
  plan::BuildPlan& plan = m_result.plan = std::move(*planned);
  for (const std::string& line : plan::describe_parts(plan.units)) m_events.detail(line);

  std::unique_ptr<compile::JobRunner> compiler =
      jobs == 1 ? compile::make_in_process_runner(scratch)
                : compile::make_process_runner(jobs, scratch, m_request.jobserver);
  const compile::CacheContext part_context = context;
  // A shard records the entries of its jobs; a merge reads the parts' entries and compiles nothing.
  shard::RecordingStore recorded(stores.shared());
  shard::PartsStore from_parts(merged_entries(m_parts));
  store::Store& compile_store = merge ? static_cast<store::Store&>(from_parts) : shard ? recorded : stores.shared();
  std::vector<std::string> part_files;
  for (const shard::NamedPart& p : m_parts) part_files.push_back(p.file);
  // The merge names the shard that should have held an image by the cut the parts recorded.
  const std::unique_ptr<compile::JobRunner> refusing =
      merge ? shard::make_refusing_runner(m_parts.front().part.cut, part_files) : nullptr;
  if (shard) {
    m_part.cut = shard::assign_shards(plan, shard->count, cost_of(plan));
    m_part.cut_by = "the estimate";
    if (times) {
      const shard::TimedCost timed = shard::timed_cost(plan, *times);
      m_part.cut_by = "the compile times in " + m_request.shard_times.string() + " (" + std::to_string(timed.recorded) +
                      " of " + std::to_string(plan.jobs.size()) + " jobs timed)";
    }
    m_events.detail("shard " + std::to_string(shard->index) + " of " + std::to_string(shard->count) + ": cut by " +
                    m_part.cut_by);
  }
  compile::CompileCache compile_cache(compile_store, std::move(context));
  compile::CacheCounts counts;
  const auto compile_start = std::chrono::steady_clock::now();
  if (speculation) speculation->finish();
  const std::unique_ptr<compile::JobRunner> speculated = speculation ? speculation->runner(*compiler) : nullptr;
  compile::JobRunner& compiles = merge ? *refusing : speculated ? *speculated : *compiler;
  const std::unique_ptr<compile::JobRunner> cached =
      compile::make_cached_runner(compiles, compile_cache, worth_keeping, usable_hit, counts);
  const std::unique_ptr<compile::JobRunner> runner =
      shard ? shard::make_shard_runner(*cached, m_part.cut, shard->index) : nullptr;
  Result<std::vector<compile::CompileOutput>> outputs =
      compile_plan(plan, runner ? *runner : *cached, m_events, &compile_cache);
  m_result.compile_seconds = seconds_since(compile_start);
  say_unreadable_sources();
  m_result.cached = counts.hits;
  m_result.compiled = counts.misses;
  m_result.compiled_early = speculation ? speculation->taken() : 0;
  stores.shared().add_counters({{"compile.hits", counts.hits}, {"compile.misses", counts.misses}});
  m_events.detail("compile: " + std::to_string(counts.hits) + " cached, " + std::to_string(counts.misses) +
                  " compiled (" + std::to_string(m_result.compiled_early) + " while the scan ran)");
  if (const std::string remote = remote_summary(stores.shared()); !remote.empty()) m_events.detail(remote);
  if (!outputs) {
    // Written when the compiles fail too: a source that does not compile is the one its reader most
    // needs to see with its flags (the build fails anyway: a database it cannot write adds nothing).
    (void)write_compile_commands();
    return stop(BuildFailure::failed, outputs.error()), false;
  }
  m_result.outputs = std::move(*outputs);
  if (shard) {
    if (Status s = write_compile_commands(); !s) return stop(BuildFailure::environment, s.error()), false;
    shard::Entries entries = recorded.take_entries();
    m_result.part_images = entries.size();
    if (Status s = write_part(m_result.output, m_part, plan, part_context, std::move(entries)); !s)
      return stop(BuildFailure::failed, s.error()), false;
  } else if (!write_package(manifest, toolkit, prefix)) {
    return false;
  }
  if (!m_request.write_times.empty()) {
    const shard::CompileTimes measured = shard::measured_times(plan, m_result.outputs);
    const std::string text = shard::format_times(measured);
    if (Status s = write_file_atomically(m_request.write_times, std::as_bytes(std::span(text))); !s)
      return stop(BuildFailure::environment, Error{"cannot write the compile times " + m_request.write_times.string() +
                                                   ": " + s.error().message}),
             false;
    m_events.detail("wrote " + m_request.write_times.string() + ": the compile times of " +
                    std::to_string(measured.size()) + " of " + std::to_string(plan.jobs.size()) + " jobs");
  }
  return true;
}

// Assembles the package from the compiled images, checks it against what was asked, and writes it
// and the depfile, each whole. False when it stopped.
bool BuildRun::write_package(const manifest::Manifest& manifest, const compile::Toolkit& toolkit,
                             const std::string& prefix) {
  const fs::path& output = m_result.output;
  const fs::path& depfile = m_result.depfile;
  const plan::BuildPlan& plan = m_result.plan;
  Result<package::AssembledPackage> assembled =
      package::assemble(manifest, plan, m_result.outputs, toolkit, {prefix, k_version});
  if (!assembled) return stop(BuildFailure::failed, then(assembled.error(), "; no package written")), false;
  // Host and Python sources are inputs too: a new request there changes the package. Each is listed
  // once, also where the package records it already (a host source the nvcc route read).
  for (const fs::path& input : m_found.request_inputs)
    if (std::find(assembled->inputs.begin(), assembled->inputs.end(), input) == assembled->inputs.end())
      assembled->inputs.push_back(input);
  // So are the --add fragments: a harvest that adds names must build again.
  for (const fs::path& fragment : m_request.additions) assembled->inputs.push_back(fs::absolute(fragment));
  for (const plan::Finding& warning : assembled->warnings)
    m_events.warning(WarningSource::kiln, plan::render(warning, false));
  for (const plan::Finding& warning : empty_source_warnings(plan, assembled->contents, prefix))
    m_events.warning(WarningSource::kiln, plan::render(warning, false));
  // Fewer kernels than asked for is said once, whatever dropped them; strict refuses the package.
  if (Status answered = answers_every_name(m_found.asked, assembled->contents); !answered) {
    if (m_request.strict) return stop(BuildFailure::failed, then(answered.error(), " (--strict); no package written")), false;
    m_events.warning(WarningSource::scan, diagnostic(answered.error(), "warning"));
  }
  // Headers are known only now: none may be an output either.
  if (Status s = check_outputs({output, depfile, m_request.compile_commands}, read_inputs(assembled->inputs));
      !s)
    return stop(BuildFailure::usage, s.error()), false;
  // Each unit's compiler is known now (NVRTC, or nvcc after NVRTC rejected it).
  if (Status s = write_compile_commands(); !s) return stop(BuildFailure::environment, s.error()), false;

  // Before anything is written: a name a depfile cannot hold fails the build, not the depfile alone.
  const Result<std::string> deps =
      depfile.empty() ? Result<std::string>(std::string()) : package::depfile_text(output, assembled->inputs);
  if (!deps)
    return stop(BuildFailure::bad_input, then(deps.error(), "; nothing written (--no-depfile writes no depfile)")),
           false;

  format::WriteOptions options;
  options.compress = manifest.compress;
  const Result<std::vector<std::byte>> written = format::write_package(assembled->contents, options);
  if (!written) return stop(BuildFailure::failed, then(written.error(), "; no package written")), false;
  if (Status s = write_file_atomically(output, *written); !s)
    return stop(BuildFailure::environment, s.error()), false;
  if (!depfile.empty()) {
    if (Status s = write_file_atomically(depfile, std::as_bytes(std::span(*deps))); !s)
      return stop(BuildFailure::environment, s.error()), false;
  }
  m_result.kernels = assembled->contents.kernels.size();
  m_result.bytes = written->size();
  return true;
}

}  // namespace

BuildResult Builder::run(const BuildRequest& request) {
  BuildResult result;
  BuildRun(request, m_events, result).run();
  return result;
}

}  // namespace kiln::build

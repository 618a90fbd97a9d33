#include "build/speculation.hpp"

#include "compile/cached_runner.hpp"
#include "plan/build_plan.hpp"
#include "plan/text_discovery.hpp"
#include "store/local_store.hpp"
#include "util/signal_cleanup.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace kiln::build {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_folder = "speculation";

// The jobs of every unit the speculative discovery routed (link groups and image parts left out: their
// jobs depend on what the scan finds), that `cache` does not hold, as the cached runner compiles them.
std::vector<compile::CompileJob> speculative_jobs(const manifest::Manifest& manifest, const compile::Toolkit& toolkit,
                                                  const SpeculationSettings& settings, const fs::path& directory,
                                                  compile::CompileCache& cache) {
  plan::ProjectText own_walk(manifest, toolkit.root);
  plan::ProjectText& project = settings.project_text ? *settings.project_text : own_walk;
  const plan::Discovery discovery = plan::speculative_discovery(manifest, project, settings.unread);
  Result<plan::BuildPlan> planned = plan::make_plan(
      manifest, toolkit,
      {settings.display_prefix, directory, settings.context.build_dir, settings.context.kiln_include_dir}, discovery);
  if (!planned) return {};
  std::vector<compile::CompileJob> jobs;
  for (std::size_t u = 0; u < planned->units.size(); ++u) {
    const plan::PlannedUnit& unit = planned->units[u];
    if (!unit.members.empty() || unit.part != 0 || !discovery.sources.count(unit.source)) continue;
    for (std::size_t t = 0; t < planned->targets.size(); ++t) {
      const compile::CompileJob& job = planned->jobs[u * planned->targets.size() + t];
      // As the build's cached runner hands its misses on: with portable messages (compile_cache.hpp),
      // which is what SpeculatedRunner is asked for.
      if (!cache.lookup(job)) jobs.push_back(cache.portable_job(job));
    }
  }
  return jobs;
}

// What a later build may take: successes only (a failure is compiled again, and says why then).
void compile_into(const std::vector<compile::CompileJob>& jobs, const SpeculationSettings& settings,
                  const fs::path& directory, compile::CompileCache& outputs) {
  const std::unique_ptr<compile::JobRunner> runner =
      settings.jobs == 1 ? compile::make_in_process_runner(directory)
                         : compile::make_process_runner(settings.jobs, directory, settings.jobserver);
  const std::vector<compile::CompileOutput> compiled = runner->run(jobs, nullptr);
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (compiled[i].ok) outputs.store(jobs[i], compiled[i]);
}

class SpeculatedRunner final : public compile::JobRunner {
public:
  SpeculatedRunner(compile::JobRunner& inner, compile::CompileCache& outputs, std::size_t& taken)
      : m_inner(inner), m_outputs(outputs), m_taken(taken) {}

  std::vector<compile::CompileOutput> run(const std::vector<compile::CompileJob>& jobs,
                                          const compile::ProgressFn& progress) override {
    std::vector<compile::CompileOutput> outputs(jobs.size());
    std::vector<std::size_t> rest;
    std::size_t done = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (std::optional<compile::CompileOutput> out = m_outputs.lookup(jobs[i])) {
        outputs[i] = std::move(*out);
        outputs[i].from_cache = false;
        outputs[i].compiled_early = true;
        // Compiled by this build, earlier: its time is the compile's (the build's cache stores it, and
        // sharded builds cut by it: shard/compile_times.hpp), not the lookup's.
        outputs[i].seconds = outputs[i].recorded_seconds;
        outputs[i].recorded_seconds = 0;
        ++m_taken;
        if (progress) progress(++done, jobs.size(), jobs[i], outputs[i]);
      } else {
        rest.push_back(i);
      }
    }
    if (rest.empty()) return outputs;
    std::vector<compile::CompileJob> todo;
    for (const std::size_t i : rest) todo.push_back(jobs[i]);
    const std::vector<compile::CompileOutput> compiled =
        m_inner.run(todo, [&](std::size_t, std::size_t, const compile::CompileJob& job, const compile::CompileOutput& out) {
          if (progress) progress(++done, jobs.size(), job, out);
        });
    for (std::size_t k = 0; k < rest.size(); ++k) outputs[rest[k]] = compiled[k];
    return outputs;
  }

private:
  compile::JobRunner& m_inner;
  compile::CompileCache& m_outputs;
  std::size_t& m_taken;
};

}  // namespace

Speculation::Speculation(fs::path directory, compile::CacheContext context, pid_t pid)
    : m_directory(std::move(directory)),
      m_store(std::make_unique<store::LocalStore>(m_directory / "outputs", 0)),
      m_outputs(std::make_unique<compile::CompileCache>(*m_store, std::move(context))),
      m_pid(pid) {}

std::unique_ptr<Speculation> Speculation::start(const manifest::Manifest& manifest, const compile::Toolkit& toolkit,
                                                SpeculationSettings settings) {
  const fs::path directory = settings.scratch_dir / k_folder;
  const char* off = std::getenv("KILN_SPECULATE");
  std::error_code ec;
  if ((off && std::strcmp(off, "0") == 0) || !fs::create_directories(directory, ec))
    return std::unique_ptr<Speculation>(new Speculation(directory, settings.context, -1));
  const pid_t parent = getpid();
  // Registered as the build's other workers are, with the cleanup's signals held until it is: an
  // interrupted build kills it and waits for it before removing the scratch directory, which it
  // writes into. Its parent-death signal alone came too late: it went on writing there, and into the
  // scan cache, after the build had cleaned up.
  cleanup::HeldSignals held;
  const pid_t pid = fork();
  if (pid > 0) cleanup::add_child(pid);
  if (pid == 0) {
    // The build's own child: it goes when the build goes, whatever ends it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    cleanup::forget_after_fork();
    held.release();
    compile::CompileCache cache(*settings.cache, settings.context);
    Speculation self(directory, settings.context, -1);
    const std::vector<compile::CompileJob> jobs = speculative_jobs(manifest, toolkit, settings, directory, cache);
    if (!jobs.empty()) compile_into(jobs, settings, directory, *self.m_outputs);
    _exit(0);
  }
  return std::unique_ptr<Speculation>(new Speculation(directory, settings.context, pid < 0 ? -1 : pid));
}

Speculation::~Speculation() {
  if (m_pid <= 0) return;
  kill(m_pid, SIGKILL);
  int status = 0;
  while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
  }
  cleanup::remove_child(m_pid);
}

void Speculation::finish() {
  if (m_pid <= 0) return;
  int status = 0;
  while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
  }
  cleanup::remove_child(m_pid);
  m_pid = -1;
}

std::unique_ptr<compile::JobRunner> Speculation::runner(compile::JobRunner& inner) {
  return std::make_unique<SpeculatedRunner>(inner, *m_outputs, m_taken);
}

}  // namespace kiln::build

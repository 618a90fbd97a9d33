#include "compile/cached_runner.hpp"

namespace kiln::compile {

namespace {

class CachedRunner final : public JobRunner {
public:
  CachedRunner(JobRunner& inner, CompileCache& cache, KeepFn keep, UsableFn usable, CacheCounts& counts)
      : m_inner(inner), m_cache(cache), m_keep(std::move(keep)), m_usable(std::move(usable)), m_counts(counts) {}

  std::vector<CompileOutput> run(const std::vector<CompileJob>& jobs, const ProgressFn& progress) override {
    std::vector<CompileOutput> outputs(jobs.size());
    std::vector<std::size_t> misses;
    std::size_t done = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      std::optional<CompileOutput> hit = m_cache.lookup(jobs[i]);
      if (hit && m_usable(jobs[i], *hit)) {
        outputs[i] = std::move(*hit);
        outputs[i].from_cache = true;
        ++m_counts.hits;
        if (progress) progress(++done, jobs.size(), jobs[i], outputs[i]);
      } else {
        misses.push_back(i);
      }
    }
    m_counts.misses += misses.size();
    if (misses.empty()) return outputs;
    // Misses compile with portable messages (compile_cache.hpp), stored as they are, shown rendered.
    std::vector<CompileJob> todo;
    for (const std::size_t i : misses) todo.push_back(m_cache.portable_job(jobs[i]));
    const auto original = [&](const CompileJob& job) -> std::size_t {
      if (&job >= todo.data() && &job < todo.data() + todo.size()) return misses[static_cast<std::size_t>(&job - todo.data())];
      for (std::size_t k = 0; k < todo.size(); ++k)
        if (todo[k].unit == job.unit && todo[k].target == job.target && todo[k].source == job.source) return misses[k];
      return misses.front();
    };
    const std::vector<CompileOutput> compiled =
        m_inner.run(todo, [&](std::size_t, std::size_t, const CompileJob& job, const CompileOutput& out) {
          const std::size_t i = original(job);
          if (progress) progress(++done, jobs.size(), jobs[i], m_cache.rendered(jobs[i], out));
        });
    for (std::size_t k = 0; k < misses.size(); ++k) {
      const CompileJob& job = jobs[misses[k]];
      outputs[misses[k]] = m_cache.rendered(job, compiled[k]);
      // An output whose headers are unknown could hit after one of them changed: never stored.
      if (m_keep(job, outputs[misses[k]]) && !compiled[k].headers_unknown) m_cache.store(job, compiled[k]);
    }
    return outputs;
  }

private:
  JobRunner& m_inner;
  CompileCache& m_cache;
  KeepFn m_keep;
  UsableFn m_usable;
  CacheCounts& m_counts;
};

}  // namespace

std::unique_ptr<JobRunner> make_cached_runner(JobRunner& inner, CompileCache& cache, KeepFn keep, UsableFn usable,
                                              CacheCounts& counts) {
  return std::make_unique<CachedRunner>(inner, cache, std::move(keep), std::move(usable), counts);
}

}  // namespace kiln::compile

// Runs pieces of work in forked worker processes, a few at a time. NVRTC serializes compiles inside
// one process and clang's parses are single-threaded, so parallel builds use processes, not threads.
// Each worker hands its result back as bytes, through a file in a scratch directory.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

class Jobserver;

struct WorkerResult {
  std::optional<std::vector<std::byte>> bytes;   // nothing when the worker failed
  std::string failure;                           // why: "died with signal 9 (Killed)", ...
};

struct ProcessPoolSettings {
  int parallel = 1;                              // workers at once (at least 1)
  std::filesystem::path scratch_dir;             // where workers leave their results
  std::string result_prefix;                     // file names: <prefix><index>.out
  Jobserver* jobserver = nullptr;                // if set, every worker but one also needs a token
};

// Calls work(i) in a child process for every i below `count` and `finished(i, result)` in the
// parent as each child ends, in the order they end. A child never runs the parent's exit handlers.
// With a jobserver, at most `parallel` workers run, as many as it gives tokens for plus one; every
// token is given back when its worker ends, and all of them when this returns or throws.
void run_in_processes(std::size_t count, const ProcessPoolSettings& settings,
                      const std::function<std::vector<std::byte>(std::size_t)>& work,
                      const std::function<void(std::size_t, WorkerResult)>& finished);

}  // namespace kiln

// The build as a library: manifest -> plan -> scan -> compile -> assemble -> package file and
// depfile, for `kiln build`, `kiln build --shard I/N` (compile one shard's jobs, write them as a part)
// and `kiln merge` (take the parts' images, write the package the whole build would). The command
// line (cli/build_command.cpp) turns its options into a BuildRequest, shows the BuildEvents and
// turns the BuildResult into an exit code; tests drive the Builder directly.
#pragma once

#include "build/build_events.hpp"
#include "compile/compile_job.hpp"
#include "plan/build_plan.hpp"
#include "shard/shard_plan.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kiln {
class Jobserver;
}

namespace kiln::build {

struct BuildRequest {
  std::filesystem::path manifest = "kiln.toml";
  std::filesystem::path root;                  // resolve the manifest's relative paths here, not its directory
  // Manifest fragments (`--add`, manifest/fragment_reader.hpp) whose names join the manifest's sources.
  std::vector<std::filesystem::path> additions;
  std::vector<std::string> targets;            // instead of the manifest's, when not empty
  std::optional<shard::ShardSpec> shard;       // compile this shard's jobs only and write them as a part
  std::vector<std::filesystem::path> parts;    // merge: one part of each shard; compile nothing
  std::filesystem::path shard_times;           // a shard: cut by these compile times (shard/compile_times.hpp)
  std::filesystem::path write_times;           // write every job's compile time there (also a shard's, a merge's)
  std::filesystem::path output;                // empty: <name>.kiln (a shard: <name>.<I>-of-<N>.kilnpart)
  std::filesystem::path depfile;               // empty: <output>.d
  bool write_depfile = true;
  // Where to write the kernel sources' compilation database (compile_database.hpp); empty: none.
  std::filesystem::path compile_commands;
  std::filesystem::path build_dir;             // what <build> names; empty: the output's directory
  std::filesystem::path cuda_root;             // empty: the toolkit found as compile/toolkit.hpp says
  std::vector<std::filesystem::path> host_sources;     // to scan for requests, beside the manifest's
  std::string host_standard;                   // the -std host sources are parsed at; empty: the kernels'
  std::vector<std::filesystem::path> python_sources;
  std::string python;                          // the interpreter for Python sources; empty: the default
  std::filesystem::path cache_dir;             // empty: as store/cache_settings.hpp finds it
  int jobs = 1;                                // compiles and scans at once, at most (1: in this process)
  Jobserver* jobserver = nullptr;              // make's, when the build takes part in it (jobs is then the cap)
  bool strict = false;                         // the scan's findings and short answers fail the build
};

// Why a build failed, as the command line's exit codes tell it (cli/exit_codes.hpp).
enum class BuildFailure {
  none,
  usage,         // the request or the environment's settings are wrong (an output that is an input)
  bad_input,     // the manifest, a source or a part is wrong
  environment,   // no toolkit, an unwritable directory, a Python that does not run
  failed,        // a compile failed, or the package cannot be made from what compiled
};

struct BuildResult {
  BuildFailure failure = BuildFailure::none;
  std::string error;                        // why, when it failed: a diagnostic or a sentence of Kiln's
  std::filesystem::path output;             // as requested or defaulted ("" before the manifest was read)
  std::filesystem::path depfile;            // "" with no depfile
  std::vector<std::string> warnings;        // every warning the events were told, in order
  std::vector<WarningSource> warning_sources;   // whose each of `warnings` is
  plan::BuildPlan plan;                     // as the compile phase left it (once planned)
  std::vector<compile::CompileOutput> outputs;   // of plan.jobs, once compiled
  std::size_t kernels = 0;                  // in the package written
  std::size_t bytes = 0;                    // of the package written
  std::size_t cached = 0;                   // images the compile cache held
  std::size_t compiled = 0;                 // images compiled in this build
  std::size_t compiled_early = 0;           // of those, compiled while the scan ran
  std::size_t part_images = 0;              // a shard: images in the part written
  double scan_seconds = 0;
  double compile_seconds = 0;
  double total_seconds = 0;
  bool ok() const { return failure == BuildFailure::none; }
};

class Builder {
public:
  explicit Builder(BuildEvents& events) : m_events(events) {}
  // Builds what `request` asks for. Nothing is written unless the build succeeds; what is written is
  // written whole (a temporary file renamed). Never throws for a user's mistake or a compile error.
  BuildResult run(const BuildRequest& request);

private:
  BuildEvents& m_events;
};

}  // namespace kiln::build

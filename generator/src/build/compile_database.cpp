#include "build/compile_database.hpp"

#include "util/file_io.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace kiln::build {

namespace fs = std::filesystem;

namespace {

// NVRTC compiles at C++17 unless told otherwise; nvcc at its host compiler's default. An NVRTC
// unit's entry says the standard its compile used.
constexpr const char* k_nvrtc_standard = "-std=c++17";

bool names_a_standard(const std::string& option) {
  return option.starts_with("-std=") || option.starts_with("--std=");
}

// `options` (nvcc's spelling) with the paths they name absolute: relative ones are the manifest
// directory's, where the compile runs.
std::vector<std::string> absolute_paths(const std::vector<std::string>& options, const fs::path& root) {
  std::vector<std::string> out;
  for (const std::string& option : options) {
    const std::string_view prefix = option.starts_with("-I")               ? "-I"
                                    : option.starts_with("--pre-include=") ? "--pre-include="
                                                                           : "";
    const fs::path path = option.substr(prefix.size());
    const bool as_given = prefix.empty() || path.is_absolute();
    out.push_back(as_given ? option : std::string(prefix) + (root / path).lexically_normal().string());
  }
  return out;
}

// The entry of one source's compile: `job` is its job for the lowest target, `unit` its plan.
CompileCommand command_for(const plan::BuildPlan& plan, const plan::PlannedUnit& unit, const compile::CompileJob& job,
                           const fs::path& package) {
  CompileCommand command;
  command.directory = plan.root;
  command.file = (plan.root / unit.source).lexically_normal();
  command.output = package;
  // The job's nvcc options where nvcc compiles it or may (they add what Kiln gives a source written
  // for NVRTC, --expt-relaxed-constexpr), else the unit's: one only NVRTC takes has no nvcc spelling.
  const std::vector<std::string>& options = job.nvcc_options.empty() ? unit.nvcc_options : job.nvcc_options;
  command.arguments = {plan.nvcc.string(), "-x", "cu"};
  if (job.compiler == compile::Compiler::nvrtc && std::none_of(options.begin(), options.end(), names_a_standard))
    command.arguments.push_back(k_nvrtc_standard);
  command.arguments.push_back("-arch=" + job.target);
  if (job.relocatable) command.arguments.push_back("-rdc=true");   // a link group's member
  for (std::string& option : absolute_paths(options, plan.root)) command.arguments.push_back(std::move(option));
  command.arguments.insert(command.arguments.end(), {"-c", command.file.string()});
  return command;
}

Result<nlohmann::ordered_json> read_database(std::string_view text, const std::string& name) {
  nlohmann::ordered_json parsed = nlohmann::ordered_json::parse(text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_array())
    return Error{name + ": not a JSON compilation database (a JSON array of objects)"};
  for (const nlohmann::ordered_json& entry : parsed)
    if (!entry.is_object()) return Error{name + ": not a JSON compilation database (an entry is not an object)"};
  return parsed;
}

std::string output_of(const nlohmann::ordered_json& entry) {
  const auto output = entry.find("output");
  return output != entry.end() && output->is_string() ? output->get<std::string>() : std::string();
}

}  // namespace

std::vector<CompileCommand> compile_commands(const plan::BuildPlan& plan, const fs::path& package) {
  std::vector<CompileCommand> commands;
  const fs::path output = fs::absolute(package).lexically_normal();
  const std::size_t targets = plan.targets.size();
  for (std::size_t u = 0; u < plan.units.size() && targets > 0 && u * targets < plan.jobs.size(); ++u) {
    const plan::PlannedUnit& unit = plan.units[u];
    const compile::CompileJob& job = plan.jobs[u * targets];   // the lowest target: jobs are in target order
    if (unit.part > 0) continue;
    if (unit.members.empty()) {
      commands.push_back(command_for(plan, unit, job, output));
      continue;
    }
    for (std::size_t m = 0; m < unit.members.size() && m < job.members.size(); ++m)
      commands.push_back(command_for(plan, unit.members[m], job.members[m], output));
  }
  return commands;
}

std::string database_text(const std::vector<CompileCommand>& commands) {
  nlohmann::ordered_json database = nlohmann::ordered_json::array();
  for (const CompileCommand& command : commands)
    database.push_back({{"directory", command.directory.string()},
                        {"file", command.file.string()},
                        {"arguments", command.arguments},
                        {"output", command.output.string()}});
  return database.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

Status write_if_changed(const fs::path& path, std::string_view text) {
  if (const std::optional<std::string> current = read_text_file(path); current && *current == text) return Ok{};
  return write_file_atomically(path, std::as_bytes(std::span(text.data(), text.size())));
}

Result<std::string> merged_database(std::string_view database, const std::vector<std::string>& fragments,
                                    const std::vector<std::string>& names) {
  const auto name = [&](std::size_t i) { return i < names.size() ? names[i] : std::string("a compilation database"); };
  Result<nlohmann::ordered_json> merged = read_database(database.empty() ? std::string_view("[]") : database, name(0));
  if (!merged) return merged.error();
  nlohmann::ordered_json added = nlohmann::ordered_json::array();
  std::set<std::string> packages;
  for (std::size_t f = 0; f < fragments.size(); ++f) {
    Result<nlohmann::ordered_json> fragment = read_database(fragments[f], name(f + 1));
    if (!fragment) return fragment.error();
    for (nlohmann::ordered_json& entry : *fragment) {
      packages.insert(output_of(entry));
      added.push_back(std::move(entry));
    }
  }
  packages.erase("");
  nlohmann::ordered_json kept = nlohmann::ordered_json::array();
  for (nlohmann::ordered_json& entry : *merged)
    if (!packages.count(output_of(entry))) kept.push_back(std::move(entry));
  for (nlohmann::ordered_json& entry : added) kept.push_back(std::move(entry));
  return kept.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace kiln::build

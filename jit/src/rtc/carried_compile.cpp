// RuntimeCompiler::package_kernel: a kernel a package lacks, compiled from the sources it carries,
// with exactly the build's inputs: the files are written to a private directory laid out as the
// build's tree (source_tree.hpp: in memory where it can), and NVRTC gets the build's options with the
// include directories moved there.
#include "rtc/runtime_compiler.hpp"

#include "rtc/carried_units.hpp"
#include "rtc/compiled_package.hpp"
#include "rtc/compiler_access.hpp"
#include "rtc/direct_records.hpp"
#include "rtc/harvest_writer.hpp"
#include "rtc/run_log.hpp"
#include "rtc/source_tree.hpp"

namespace kiln::rtc {

namespace {

int major_of(const std::string& version) {
  try {
    return std::stoi(version);
  } catch (...) {
    return 0;
  }
}

// Compiles `candidate` for `target` from its carried files (whose values carried_rules.hpp passed);
// the package bytes, or the log.
Result<Bytes> compile_carried(Compiler& compiler, const format::PackageReader& reader, const Candidate& candidate,
                              const std::string& target, std::string_view label, bool log,
                              const std::filesystem::path& cache_directory) {
  const CarriedUnit& unit = *candidate.unit;
  Result<CarriedFiles> carried = carried_files(reader, unit);
  if (!carried) return std::move(carried).error();   // names the package (where.file)
  Result<SourceTree> tree = SourceTree::write(carried->files);
  if (!tree) return Error{std::string(label) + ": " + tree.error().message};
  CompileInput input;
  input.source = std::string(carried->files.front().text);   // NVRTC takes the source as text; the tree holds it too
  input.name = tree->path_of(unit.inputs.program);
  for (const std::string& dir : unit.inputs.include_dirs) input.options.push_back("-I" + tree->path_of(dir));
  // A pre-include names its file in the tree: NVRTC would look for a relative one in this process's
  // working directory first.
  const options::CarriedValues values = options::carried_values(reader, unit.record);
  for (const std::string& option : unit.inputs.options) {
    const std::optional<std::string> pre_include = options::pre_include_value(option);
    if (!pre_include) input.options.push_back(option);
    else input.options.push_back("--pre-include=" + tree->path_of(*options::pre_included_file(values, *pre_include)));
  }
  input.link_options = unit.inputs.link_options;
  // The build's seed: internal-linkage symbols are named as the build named them, and a unit whose
  // one kernel this is compiles to the build's image, byte for byte (tests/cli/build_carried_test.cpp
  // says when it does not).
  input.random_seed = carried_random_seed(unit.inputs);
  input.kernels = {candidate.expression};
  input.target = target;
  CompileOutput output = compiler.compile(input);
  if (!output.ok) {
    // The files of the private tree are named as in the build: "include/ops.cuh", not "/tmp/kiln-…/include/ops.cuh".
    std::string log_text = tree->relative_paths_in(output.log);
    if (log_text.find("cannot open source file") != std::string::npos) {
      log_text += "\n(the package carries the headers its build read, and this instantiation includes one the "
                  "build never read: build an instantiation that reads it, or list this one in the manifest)";
    }
    return Error(std::string(label) + ": compiling '" + candidate.expression + "' from " + unit.inputs.program +
                     " for " + target + " at run time failed:",
                 {}, KILN_STATUS_COMPILE_FAILED, std::move(log_text));
  }
  if (log) log_compile(candidate.expression, unit.inputs.program, target, output.seconds, cache_directory);
  CompiledProgram compiled{unit.unit, target, std::move(output.image), {}, {}, {}};
  compiled.kernels.push_back(CompiledName{candidate.expression, output.kernel_symbols.at(0), {}});
  compiled.metadata = {{"compiled.at", "run time"},
                       {"nvrtc.version", compiler.identity().nvrtc_version},
                       {"nvjitlink.version", compiler.identity().nvjitlink_version}};
  return package_compiled(compiled);
}

std::string declared_list(const std::vector<CarriedUnit>& units) {
  std::string text;
  for (const CarriedUnit& unit : units) {
    std::string names;
    for (const std::string& k : unit.kernel_templates) names += (names.empty() ? "" : ", ") + k;
    text += (text.empty() ? "" : "; ") + unit.inputs.program + " (" + (names.empty() ? "no kernels" : names) + ")";
  }
  return text;
}

Error not_declared(const std::vector<CarriedUnit>& units, std::string_view label, std::string_view request) {
  return fail(KILN_STATUS_KERNEL_NOT_FOUND, "no source " + std::string(label) + " carries declares a kernel '" +
                                                std::string(request) + "' to compile at run time (carried: " +
                                                declared_list(units) + ")");
}

}  // namespace

Status RuntimeCompiler::check_declared(const format::PackageReader& reader, std::string_view label,
                                       std::string_view request) const {
  const std::vector<CarriedUnit> units = carried_units(reader, /*declarations_only=*/true);
  if (!candidates_for(units, request).empty()) return {};
  return not_declared(units, label, request);
}

Result<Compiled> RuntimeCompiler::package_kernel(const format::PackageReader& reader, std::string_view label,
                                                 std::string_view request, const std::string& target) {
  // Which sources may declare it, from their declarations alone; the inputs only of those.
  const std::vector<CarriedUnit> declared = carried_units(reader, /*declarations_only=*/true);
  const std::vector<Candidate> declaring = candidates_for(declared, request);
  if (declaring.empty()) return not_declared(declared, label, request);
  std::vector<Error> failures;   // one per source tried
  for (const Candidate& declaration : declaring) {
    const CarriedUnit unit = carried_unit(reader, declaration.unit->record);
    const Candidate candidate{&unit, declaration.expression};
    // What a build never carries is refused before anything is written or compiled.
    const std::vector<std::string> problems =
        options::carried_problems(options::carried_values(reader, unit.record), reader.bytes().size());
    if (!problems.empty()) {
      return fail(KILN_STATUS_CORRUPT, std::string(label) + ": cannot compile '" + candidate.expression +
                                           "' at run time from " + unit.unit + ": " + problems.front() +
                                           "; a build of this Kiln carries no such unit");
    }
    // The key needs the compiler's versions, not the compiler: a hit loads no NVRTC.
    const int major = major_of(candidate.unit->nvrtc_version);
    Result<CompilerIdentity> identity = compiler_identity(major, m_cache);
    if (!identity) {
      return fail(KILN_STATUS_NO_COMPILER,
                  "cannot compile '" + candidate.expression + "' at run time: " + identity.error().message);
    }
    const std::string key = carried_key(candidate.unit->inputs, candidate.expression, target, *identity);
    Source source = Source::produced;
    Result<SharedBytes> package = m_cache.get_or_produce(
        key,
        [&]() -> Result<Bytes> {
          Result<Compiler*> compiler = process_compiler(major);
          if (!compiler) return compiler.error();
          return compile_carried(**compiler, reader, candidate, target, label, m_settings.log, m_cache.directory());
        },
        is_compiled_package, &source);
    if (package) {
      if (m_settings.log && source != Source::produced) log_cache_hit(candidate.expression, target, source);
      write_direct_record(m_cache, reader, request, target, key, candidate.expression, **package, *identity);
      write_harvest_note(m_cache, reader, label, request, candidate.expression, unit.inputs.program, target);
      return Compiled{*package, source, candidate.expression};
    }
    failures.push_back(std::move(package).error());
  }
  // Whatever kept each source from compiling (its log; a compiler that would not load) is a failed compile.
  if (failures.size() == 1) {
    failures.front().status = KILN_STATUS_COMPILE_FAILED;
    return std::move(failures.front());
  }
  std::string text;
  for (const Error& failure : failures) text += (text.empty() ? "" : "\n") + error_text(failure);
  return fail(KILN_STATUS_COMPILE_FAILED, std::move(text));
}

}  // namespace kiln::rtc

#include "options/carried_rules.hpp"

#include "format/limits.hpp"
#include "format/tree_path.hpp"
#include "options/option_reader.hpp"

#include <algorithm>
#include <set>

namespace kiln::options {

namespace {

bool is_identifier(std::string_view text) {
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  return !text.empty() && letter(text.front()) &&
         std::all_of(text.begin(), text.end(), [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

// "ops::scale", "::k", "(anonymous namespace)::k": what a build records of the kernels a source declares.
bool is_qualified_name(std::string_view name) {
  if (name.starts_with("::")) name.remove_prefix(2);
  for (std::size_t start = 0;;) {
    const std::size_t end = std::min(name.find("::", start), name.size());
    const std::string_view part = name.substr(start, end - start);
    if (!is_identifier(part) && part != "(anonymous namespace)") return false;
    if (end == name.size()) return true;
    start = end + 2;
  }
}

Error refused_option(std::string message) { return fail(KILN_STATUS_INVALID_ARGUMENT, std::move(message)); }

// Whether `option` is one a build carries for `unit`: INVALID_ARGUMENT naming it otherwise.
Status check_carried_option(const CarriedValues& unit, const std::string& option) {
  const std::string named = "carried option '" + option + "' ";
  const std::vector<std::string> one{option};
  OptionProblem problem;
  const std::optional<ReadOption> read = read_option(one, 0, problem);
  if (!read) return refused_option(named + problem.message);
  if (read->spec->nvrtc != Nvrtc::passed) return refused_option(named + "is not one a build gives NVRTC");
  if (const std::string spelled = nvrtc_spelling(*read); spelled != option)
    return refused_option(named + "is not spelled as a build spells it ('" + spelled + "')");
  if (read->spec->scan == Scan::pre_include) {
    if (!format::is_tree_path(read->value))
      return refused_option(named +
                            "pre-includes a file outside the carried tree (a build carries a relative path without '.' "
                            "or '..' parts)");
    if (!pre_included_file(unit, read->value))
      return refused_option(named + "pre-includes a file the unit does not carry");
  }
  return {};
}

// Whether the table's translation of some option gives nvJitLink exactly `link` ("-ftz=1"): the
// option is rebuilt from the row whose nvJitLink name it has, read, and translated again.
Status check_carried_link_option(const std::string& link) {
  const std::string named = "carried link option '" + link + "' ";
  if (!link.starts_with("-") || link.starts_with("--"))
    return refused_option(named + "is not one Kiln's option table gives nvJitLink");
  const std::size_t equals = link.find('=');
  const bool valued = equals != std::string::npos;
  const std::string_view name = std::string_view(link).substr(1, valued ? equals - 1 : std::string::npos);
  const std::string value = valued ? link.substr(equals + 1) : std::string();
  std::string refusal;
  for (const OptionSpec& spec : option_table()) {
    if (spec.link == Link::none || spec.link == Link::fast_math || spec.link_name != name) continue;
    std::string option = "--" + std::string(spec.name);
    if (spec.link == Link::boolean) {
      if (value != "0" && value != "1") continue;
      option += value == "1" ? "=true" : "=false";
    } else if (valued) {
      option += "=" + value;
    }
    const std::vector<std::string> one{option};
    OptionProblem problem;
    const std::optional<ReadOption> read = read_option(one, 0, problem);
    if (!read) {
      refusal = problem.message;
      continue;
    }
    const std::vector<std::string> spelled = link_spellings(*read);
    if (std::find(spelled.begin(), spelled.end(), link) != spelled.end()) return {};
  }
  if (!refusal.empty()) return refused_option(named + refusal);
  return refused_option(named + "is not one Kiln's option table gives nvJitLink");
}

}  // namespace

std::optional<std::string> pre_include_value(const std::string& option) {
  const std::vector<std::string> one{option};
  OptionProblem problem;
  const std::optional<ReadOption> read = read_option(one, 0, problem);
  if (!read || read->spec->scan != Scan::pre_include) return std::nullopt;
  return read->value;
}

std::optional<std::string> pre_included_file(const CarriedValues& unit, std::string_view value) {
  if (!format::is_tree_path(value)) return std::nullopt;
  const auto carried = [&](const std::string& path) {
    return path == unit.program || std::find(unit.headers.begin(), unit.headers.end(), path) != unit.headers.end();
  };
  // The build's NVRTC ran in the tree's root and looked there first, then in each include directory.
  if (carried(std::string(value))) return std::string(value);
  for (const std::string& dir : unit.include_dirs) {
    if (dir != "." && !format::is_tree_path(dir)) continue;
    const std::string path = dir == "." ? std::string(value) : dir + "/" + std::string(value);
    if (carried(path)) return path;
  }
  return std::nullopt;
}

CarriedValues carried_values(const format::PackageReader& reader, std::uint32_t record) {
  const format::CarriedUnitView unit = reader.carried_unit(record);
  CarriedValues values;
  for (std::uint32_t e = unit.first_entry; e < unit.first_entry + unit.entry_count; ++e) {
    const format::CarriedEntryView entry = reader.carried_entry(e);
    std::string value(entry.value);
    switch (entry.kind) {
      case format::CarriedEntryKind::source: values.program = std::move(value); break;
      case format::CarriedEntryKind::header: values.headers.push_back(std::move(value)); break;
      case format::CarriedEntryKind::include_dir: values.include_dirs.push_back(std::move(value)); break;
      case format::CarriedEntryKind::option: values.options.push_back(std::move(value)); break;
      case format::CarriedEntryKind::link_option: values.link_options.push_back(std::move(value)); break;
      case format::CarriedEntryKind::kernel_template: values.kernel_names.push_back(std::move(value)); break;
    }
    // Each raw_size is at most 2 GiB (checked at open), and there are fewer than 2^32 entries.
    if (entry.kind == format::CarriedEntryKind::source || entry.kind == format::CarriedEntryKind::header)
      values.tree_bytes += reader.source_text(entry.text).raw_size;
  }
  return values;
}

std::uint64_t max_carried_tree_bytes(std::uint64_t package_size) {
  return std::min(format::max_total_image_size(package_size), k_max_carried_tree_bytes);
}

std::vector<std::string> carried_problems(const CarriedValues& unit, std::uint64_t package_size) {
  std::vector<std::string> problems;
  std::set<std::string_view> paths;
  for (std::size_t file = 0; file <= unit.headers.size(); ++file) {
    const std::string& path = file == 0 ? unit.program : unit.headers[file - 1];
    const std::string what = file == 0 ? "source" : "header";
    if (!format::is_tree_path(path))
      problems.push_back("carried " + what + " '" + path + "' is not a relative path without '.' or '..' parts");
    if (!paths.insert(path).second) problems.push_back("carried file '" + path + "' is given twice");
  }
  for (const std::string& dir : unit.include_dirs) {
    if (dir != "." && !format::is_tree_path(dir))
      problems.push_back("carried include directory '" + dir +
                         "' is not '.' or a relative path without '.' or '..' parts");
  }
  for (const std::string& option : unit.options)
    if (const Status carried = check_carried_option(unit, option); !carried)
      problems.push_back(carried.error().message);
  for (const std::string& link : unit.link_options)
    if (const Status carried = check_carried_link_option(link); !carried) problems.push_back(carried.error().message);
  for (const std::string& name : unit.kernel_names) {
    if (!is_qualified_name(name))
      problems.push_back("carried kernel name '" + name + "' is not a qualified C++ name (NVRTC compiles the name "
                         "expressions made from it)");
  }
  if (const std::uint64_t most = max_carried_tree_bytes(package_size); unit.tree_bytes > most) {
    problems.push_back("its carried files would write " + std::to_string(unit.tree_bytes) +
                       " bytes, more than a run-time compile from a " + std::to_string(package_size) +
                       "-byte package may write (" + std::to_string(most) + ")");
  }
  return problems;
}

}  // namespace kiln::options

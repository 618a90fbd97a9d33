// Resolving runtime requests such as pkg.kernel("reduce::block_sum<float, 256u>") to the canonical
// name expression of the instantiation they ask for. Clang does the work, the way NVRTC handles name
// expressions: a synthetic file includes the kernel source and declares, one per line,
//     static auto* const __kiln_probe_N = &(NAME);
// and the declarations walk reads back which specialization each one took the address of. The
// parentheses, and the check that a name's brackets and quotes close, keep a malformed name's errors
// on its own line. A probe that does not compile is dropped (its error names its line, directly or
// through an "in instantiation ... requested here" note) and the rest are parsed again; an error tied
// to no line (a deferred CUDA diagnostic) splits the probes in halves until it has its one culprit,
// so one bad request never costs another its resolution.
#include "scan/scan_job.hpp"
#include "scan/unnamed_namespaces.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

namespace kiln::scan {

namespace {

using detail::ParseMode;

std::string_view trim(std::string_view s) {
  const std::size_t begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(" \t\r\n") - begin + 1);
}

std::vector<std::string> components(std::string_view written) {
  const std::string qualified = without_unnamed_namespaces(written);
  std::vector<std::string> out;
  for (std::size_t start = 0;;) {
    const std::size_t end = qualified.find("::", start);
    const std::string_view part =
        trim(std::string_view(qualified).substr(start, end == std::string::npos ? end : end - start));
    if (!part.empty() && part != "(anonymous namespace)") out.emplace_back(part);
    if (end == std::string::npos) return out;
    start = end + 2;
  }
}

// Whether `request` is a template-id naming `kernel`: the names before '<' agree, where the request
// may leave out enclosing namespaces that need not be written (anonymous and inline ones). Clang
// has the last word; this only keeps probes for other sources' kernels out of the parse.
bool names_template(const std::string& written, const Kernel& kernel) {
  if (!kernel.is_template) return false;
  const std::string request = without_unnamed_namespaces(written);   // "<unnamed>::k<1>" has its '<' later
  const std::size_t angle = request.find('<');
  if (angle == std::string::npos) return false;
  const std::vector<std::string> wanted = components(request.substr(0, angle));
  const std::vector<std::string> have = components(kernel.qualified_name);
  if (wanted.empty() || have.empty() || wanted.back() != have.back()) return false;
  auto it = have.begin();
  for (const std::string& w : wanted) {
    it = std::find(it, have.end(), w);
    if (it == have.end()) return false;
    ++it;
  }
  return true;
}

// Whether the identifier or number that ends right before `at` is a number ("1'000", "0xFF'FF").
bool starts_number(const std::string& text, std::size_t at) {
  std::size_t begin = at;
  while (begin > 0 && (std::isalnum(static_cast<unsigned char>(text[begin - 1])) || text[begin - 1] == '_' ||
                       text[begin - 1] == '\''))
    --begin;
  return begin < at && std::isdigit(static_cast<unsigned char>(text[begin]));
}

// Text that can go into the probe file as one expression on one line, whose errors stay there:
// no line breaks, nothing that ends a declaration or starts a directive or a string, and brackets
// and character literals ('J', '\\'') that close. Anything else is not a name C++ can write.
bool probe_safe(const std::string& name) {
  if (name.empty() || name.size() >= 4096 || name.find_first_of(";#\"\n\r") != std::string::npos) return false;
  std::string open;   // brackets not yet closed, innermost last
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '\'' && i > 0 && starts_number(name, i)) {
      continue;   // a digit separator: 1'000
    } else if (c == '\'') {
      for (++i; i < name.size() && name[i] != '\''; ++i)
        if (name[i] == '\\') ++i;
      if (i >= name.size()) return false;
    } else if (c == '(' || c == '[' || c == '{') {
      open += c;
    } else if (c == ')' || c == ']' || c == '}') {
      const char match = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (open.empty() || open.back() != match) return false;
      open.pop_back();
    }
  }
  return open.empty();
}

// clang's message, unless it is about the probe declaration itself rather than the name.
std::string probe_message(const std::string& message) {
  if (message.find("__kiln_probe_") != std::string::npos)
    return "clang finds no specialization of the template for these arguments";
  return message;
}

}  // namespace

Resolution resolve_requests(const ScanInput& input, const ScanResult& scanned,
                            const std::vector<RuntimeRequest>& requests) try {
  Resolution out;
  // Distinct names to probe, and the requests that spell each.
  std::vector<std::string> names;
  std::vector<std::vector<const RuntimeRequest*>> spelled_by;
  for (const RuntimeRequest& r : requests) {
    if (r.what != RuntimeRequest::What::kernel) continue;
    if (std::none_of(scanned.kernels.begin(), scanned.kernels.end(),
                     [&](const Kernel& k) { return k.defined && names_template(r.name, k); }))
      continue;
    auto it = std::find(names.begin(), names.end(), r.name);
    if (it == names.end()) {
      names.push_back(r.name);
      spelled_by.emplace_back();
      it = names.end() - 1;
    }
    spelled_by[static_cast<std::size_t>(it - names.begin())].push_back(&r);
  }
  if (names.empty()) return out;
  auto warn = [&](std::size_t index, const std::string& why) {
    for (const RuntimeRequest* r : spelled_by[index])
      out.diagnostics.push_back({Diagnostic::Severity::warning, r->location,
                                 "the request for kernel '" + r->name + "' names a kernel template of " +
                                     input.file.string() + " but does not resolve to an instantiation: " + why});
  };

  std::vector<std::size_t> all;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (probe_safe(names[i])) all.push_back(i);
    else warn(i, "it is not a name C++ can write (a bracket or a character literal that does not close, or a "
                 "';', '#', '\"' or line break)");
  }
  Result<detail::SourceFile> source = detail::read_source(input);
  if (!source || source->full_path.string().find_first_of("\"\n") != std::string::npos) {
    for (std::size_t i : all) warn(i, "cannot include " + input.file.string());
    return out;
  }
  const std::string probe_file = source->full_path.string() + ".kiln-probe.cu";
  ParseMode mode = detail::prelude_candidate(input, source->text) ? ParseMode::device_prelude : ParseMode::device;

  // Sets of probes still to parse together; a set whose parse fails for no line of its own is split.
  std::vector<std::vector<std::size_t>> work;
  if (!all.empty()) work.push_back(std::move(all));
  while (!work.empty()) {
    std::vector<std::size_t> live = std::move(work.back());
    work.pop_back();
    std::string text = "#include \"" + source->full_path.string() + "\"\n";
    std::map<int, std::size_t> line_to_index;
    for (std::size_t k = 0; k < live.size(); ++k) {
      line_to_index[static_cast<int>(k) + 2] = live[k];
      // The unnamed namespace spelled out is reachable without it ("<unnamed>::b::k<1>" is "b::k<1>").
      text += "static auto* const __kiln_probe_" + std::to_string(live[k]) + " = &(" +
              without_unnamed_namespaces(names[live[k]]) + ");\n";
    }
    detail::ParseJob job = detail::make_job(input, *source, mode, probe_file, {{probe_file, text}});
    job.declarations = false;
    job.references = false;
    job.probe_file = probe_file;
    const detail::ParseOutput parsed = detail::run_parse(job);

    if (!parsed.failed) {
      for (const detail::ProbeResult& p : parsed.probes) {
        const std::size_t index = static_cast<std::size_t>(p.index);
        if (index >= names.size()) continue;
        const bool ours = std::any_of(scanned.kernels.begin(), scanned.kernels.end(), [&](const Kernel& k) {
          return k.is_template && k.qualified_name == p.kernel;
        });
        if (!ours) continue;
        if (!p.name_expression) {
          warn(index, p.why_not);
          continue;
        }
        for (const RuntimeRequest* r : spelled_by[index])
          out.instantiations.push_back({p.kernel, *p.name_expression, FoundBy::runtime_request, r->location,
                                        p.symbol_form, p.mangled_name});
      }
      continue;
    }
    // Errors tied to no probe line: the source itself does not parse this way, or an error (a
    // deferred CUDA diagnostic) names no line of the probe that caused it.
    const auto unattributed = std::find_if(parsed.errors.begin(), parsed.errors.end(),
                                           [](const detail::ClangError& e) { return e.probe_line == 0; });
    if (unattributed != parsed.errors.end()) {
      if (mode == ParseMode::device_prelude) {
        mode = ParseMode::device;
        work.push_back(std::move(live));
      } else if (live.size() == 1) {
        warn(live.front(), unattributed->diagnostic.message);
      } else {
        const auto half = live.begin() + static_cast<std::ptrdiff_t>(live.size() / 2);
        work.emplace_back(half, live.end());
        work.emplace_back(live.begin(), half);
      }
      continue;
    }
    std::map<std::size_t, std::string> failed;
    for (const detail::ClangError& e : parsed.errors)
      if (auto it = line_to_index.find(e.probe_line); it != line_to_index.end())
        failed.try_emplace(it->second, probe_message(e.diagnostic.message));
    for (const auto& [index, message] : failed) warn(index, message);
    std::erase_if(live, [&](std::size_t index) { return failed.count(index) != 0; });
    if (!failed.empty() && !live.empty()) work.push_back(std::move(live));
  }
  // In the order the requests were written, whatever order the sets were parsed in.
  std::stable_sort(out.diagnostics.begin(), out.diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.location.file, a.location.line, a.location.column) <
           std::tie(b.location.file, b.location.line, b.location.column);
  });
  return out;
} catch (const std::exception& e) {
  Resolution out;
  out.diagnostics.push_back({Diagnostic::Severity::warning, {}, std::string("resolving requests failed: ") + e.what()});
  return out;
}

}  // namespace kiln::scan

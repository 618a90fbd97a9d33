// Runs the embedded python_requests.py over Python sources and turns its answer (one
// "KILN-PYTHON-SCAN {json}" line; the script documents the form) into ScanResults. Python sources
// are not cached: one interpreter run reads all of them in about 0.1 s, kiln build runs only when an
// input changed, and a key would have to name the interpreter (Pythons parse differently; one
// upgraded in place keeps its path).
#include "scan/python_scanner.hpp"
#include "util/diagnostic.hpp"

#include <nlohmann/json.hpp>

#include <optional>

namespace kiln::scan {

namespace {

using nlohmann::json;

constexpr std::string_view k_marker = "KILN-PYTHON-SCAN ";

// "ops.py" or "ops.py, util.py and 3 more": for messages about all of the files.
std::string file_list(const std::vector<PythonSource>& sources) {
  std::string list;
  for (std::size_t i = 0; i < sources.size() && i < 3; ++i) list += (i ? ", " : "") + sources[i].file;
  if (sources.size() > 3) list += " and " + std::to_string(sources.size() - 3) + " more";
  return list;
}

// The last few lines of what the interpreter printed, for an error that has nothing better to show.
std::string tail(const std::string& output) {
  std::string text = output;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  std::size_t at = text.size();
  for (int lines = 0; lines < 6 && at != std::string::npos && at > 0; ++lines) at = text.rfind('\n', at - 1);
  return at == std::string::npos || at == 0 ? text : text.substr(at + 1);
}

// The JSON after the marker line, or nothing: the script did not get to print its answer.
std::optional<std::string> answer_of(const std::string& output) {
  for (std::size_t at = 0; at < output.size();) {
    std::size_t end = output.find('\n', at);
    if (end == std::string::npos) end = output.size();
    if (output.compare(at, k_marker.size(), k_marker) == 0)
      return output.substr(at + k_marker.size(), end - at - k_marker.size());
    at = end + 1;
  }
  return std::nullopt;
}

Location location(const json& entry, const std::string& file) {
  return place(file, entry.at("line").get<int>(), entry.at("column").get<int>());
}

RuntimeRequest::What what_of(const json& entry) {
  return entry.at("what").get<std::string>() == "variable" ? RuntimeRequest::What::variable : RuntimeRequest::What::kernel;
}

// One file's findings. Throws json exceptions on a malformed answer (the caller turns them into an Error).
ScanResult file_result(const json& found, const std::string& file, const std::string& version) {
  ScanResult result;
  for (const json& e : found.at("errors")) {
    const std::string kind = e.at("kind").get<std::string>(), message = e.at("message").get<std::string>();
    result.diagnostics.push_back(
        {Diagnostic::Severity::error, location(e, file),
         kind == "read"     ? "cannot read the Python source: " + message
         : kind == "syntax" ? "Python syntax error: " + message + " (parsed by Python " + version + ")"
                            : "Python cannot parse the file: " + message + " (Python " + version + ")"});
  }
  if (!result.ok()) return result;   // as for clang: nothing else from a file with errors
  for (const json& e : found.at("requests"))
    result.requests.push_back({what_of(e), e.at("name").get<std::string>(), location(e, file)});
  for (const json& e : found.at("non_constant")) {
    const std::string noun = what_of(e) == RuntimeRequest::What::kernel ? "kernel" : "variable";
    result.diagnostics.push_back(
        {Diagnostic::Severity::warning, location(e, file),
         "the " + noun + " name in this request to the Kiln runtime (." + e.at("method").get<std::string>() +
             "()) is not a constant string (it is " + e.at("argument").get<std::string>() +
             "): the scan cannot tell which " + noun + " it asks for"});
  }
  return result;
}

}  // namespace

Result<std::vector<ScanResult>> scan_python_sources(const std::vector<PythonSource>& sources,
                                                    const PythonInterpreter& python, compile::ChildRunner& runner) {
  if (sources.empty()) return std::vector<ScanResult>{};
  const std::string what = "cannot scan " + file_list(sources) + " for requests to the Kiln runtime: ";
  // -I: no user site-packages, no PYTHON* variables, no current directory on sys.path; the script
  // imports only the standard library, and nothing around the build can change what it finds.
  std::vector<std::string> argv = {python.program, "-I", "-c", std::string(python_requests_script())};
  for (const PythonSource& s : sources) argv.push_back(s.path.string());
  Result<compile::ChildOutput> ran = runner.run(argv);
  if (!ran) {
    // The runner says "cannot run <path>: <why>"; the user knows the interpreter by what they gave.
    const std::string& message = ran.error().message;
    const std::size_t why = message.rfind(": ");
    return Error{what + "cannot run the Python interpreter " + python.describe() +
                 (why == std::string::npos ? ": " + message : message.substr(why))};
  }
  const std::optional<std::string> answer = answer_of(ran->output);
  if (!answer || ran->exit_code != 0) {
    const std::string said = tail(ran->output);
    return Error{what + "the Python interpreter " + python.describe() + " did not run Kiln's scanner (exit code " +
                 std::to_string(ran->exit_code) + "): " + (said.empty() ? "it printed nothing" : said)};
  }
  try {
    const json j = json::parse(*answer);
    const std::string version = j.at("python").get<std::string>();
    if (j.contains("unsupported"))
      return Error{what + "the Python interpreter " + python.describe() + " is Python " + version + "; " +
                   j.at("unsupported").get<std::string>()};
    const json& files = j.at("files");
    if (!files.is_array() || files.size() != sources.size())
      return Error{what + "the scanner answered for " + std::to_string(files.size()) + " files, not " +
                   std::to_string(sources.size())};
    std::vector<ScanResult> results;
    for (std::size_t i = 0; i < sources.size(); ++i) results.push_back(file_result(files[i], sources[i].file, version));
    return results;
  } catch (const json::exception& e) {
    return Error{what + "the scanner's answer from " + python.describe() + " is malformed: " + e.what()};
  }
}

Result<std::vector<ScanResult>> scan_python_sources(const std::vector<PythonSource>& sources,
                                                    const std::string& requested_python) {
  if (sources.empty()) return std::vector<ScanResult>{};
  Result<PythonInterpreter> python = find_python(requested_python);
  if (!python) return Error{"cannot scan " + file_list(sources) + " for requests to the Kiln runtime: " +
                            python.error().message};
  return scan_python_sources(sources, *python, *compile::make_child_runner());
}

}  // namespace kiln::scan

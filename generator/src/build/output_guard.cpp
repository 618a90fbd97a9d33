#include "build/output_guard.hpp"

#include "platform/files.hpp"
#include "util/same_file.hpp"

namespace kiln::build {

namespace {

// `option` is the command line's option that names the output ("-o").
Status check_one(const std::filesystem::path& output, const std::string& what, const std::string& option,
                 const std::vector<Input>& inputs) {
  // What is there already must be a file Kiln may replace: never a device (--depfile /dev/null, which
  // the rename would replace for everyone), a FIFO or a directory.
  if (platform::FileStatus existing; platform::status_of(output, existing) && !existing.is_regular) {
    return Error{"refusing to write the " + what + " to " + output.string() + ": it is " + existing.kind +
                 "; nothing written (" + option + " takes a regular file or a new path" +
                 (what == "depfile" ? "; --no-depfile writes none)" : ")")};
  }
  for (const Input& input : inputs) {
    if (!same_file(output, input.path)) continue;
    return Error{"refusing to write the " + what + " to " + output.string() + ": it is " + input.role + " " +
                 input.shown + "; nothing written (choose another " + option + ")"};
  }
  return Ok{};
}

}  // namespace

std::vector<Input> known_inputs(const manifest::Manifest& manifest, const std::string& prefix,
                                const std::vector<std::filesystem::path>& host_sources,
                                const std::vector<std::filesystem::path>& python_sources) {
  std::vector<Input> inputs{{manifest.path, "the manifest", manifest.path.string()}};
  for (const manifest::SourceEntry& source : manifest.sources)
    inputs.push_back({manifest.root / source.path, "the kernel source", prefix + source.path});
  for (const std::string& host : manifest.host_sources)
    inputs.push_back({manifest.root / host, "the host source", prefix + host});
  for (const std::string& python : manifest.python_sources)
    inputs.push_back({manifest.root / python, "the Python source", prefix + python});
  for (const std::filesystem::path& host : host_sources) inputs.push_back({host, "the host source", host.string()});
  for (const std::filesystem::path& python : python_sources)
    inputs.push_back({python, "the Python source", python.string()});
  return inputs;
}

std::vector<Input> read_inputs(const std::vector<std::filesystem::path>& paths) {
  std::vector<Input> inputs;
  for (const std::filesystem::path& path : paths) {
    std::error_code ec;
    const std::filesystem::path shown = std::filesystem::proximate(path, ec);
    inputs.push_back({path, "a header the build read,", (ec ? path : shown).string()});
  }
  return inputs;
}

Status check_outputs(const Outputs& outputs, const std::vector<Input>& inputs) {
  if (!outputs.depfile.empty() && same_file(outputs.package, outputs.depfile))
    return Error{"refusing to write the depfile " + outputs.depfile.string() + " over the package " +
                 outputs.package.string() + ": they are the same file; nothing written"};
  if (Status s = check_one(outputs.package, "package", "-o", inputs); !s) return s;
  if (!outputs.depfile.empty())
    if (Status s = check_one(outputs.depfile, "depfile", "--depfile", inputs); !s) return s;
  if (outputs.compile_commands.empty()) return Ok{};
  // Nor over the build's other outputs.
  std::vector<Input> others = inputs;
  others.push_back({outputs.package, "the package", outputs.package.string()});
  if (!outputs.depfile.empty()) others.push_back({outputs.depfile, "the depfile", outputs.depfile.string()});
  return check_one(outputs.compile_commands, "compilation database", "--compile-commands", others);
}

}  // namespace kiln::build

// kiln harvest: the kernels the run-time fallback compiled from a package's carried sources (harvest
// records in the given caches) that the manifest does not list, as a manifest fragment for
// `kiln build --add`, or added to the manifest in place (--write).
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "harvest/fragment_writer.hpp"
#include "harvest/harvested_names.hpp"
#include "harvest/manifest_edit.hpp"
#include "manifest/manifest_reader.hpp"
#include "util/diagnostic.hpp"
#include "util/file_io.hpp"

#include <filesystem>
#include <iostream>

namespace kiln::cli {

namespace {

namespace fs = std::filesystem;

class HarvestCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app.add_option("caches", m_caches, "The cache directories to read (KILN_CACHE_DIR of the runs)")
        ->required()
        ->check(CLI::ExistingDirectory);
    app.add_option("--manifest", m_manifest, "The manifest whose sources the names are added to")->capture_default_str();
    CLI::Option* output = app.add_option("-o,--output", m_output, "Write the fragment to FILE (default: stdout)");
    app.add_flag("--write", m_write, "Add the names to the manifest itself, keeping its text")->excludes(output);
  }

  int run() override {
    Result<manifest::Manifest> manifest = manifest::read_manifest(m_manifest);
    if (!manifest) return fail(k_exit_bad_input, manifest.error());
    const harvest::Harvest found = harvest::harvest(*manifest, m_caches);
    for (const std::string& warning : found.warnings) std::cerr << diagnostic(Location{}, "warning", warning) << "\n";
    note(found);
    if (m_write) return write_manifest(found);
    const std::string text = harvest::fragment_text(found.names, m_manifest.string());
    if (m_output.empty()) {
      std::cout << text;
      return k_exit_ok;
    }
    if (Status s = write_file_atomically(m_output, std::as_bytes(std::span(text.data(), text.size()))); !s)
      return fail(k_exit_environment, s.error());
    return k_exit_ok;
  }

private:
  static int fail(int code, const Error& error) {
    std::cerr << diagnostic(error) << "\n";
    return code;
  }

  // What was read and left out, in one line: records of other manifests are expected in a shared cache.
  void note(const harvest::Harvest& found) const {
    std::string skipped;
    const auto add = [&](std::size_t count, const std::string& what) {
      if (count) skipped += (skipped.empty() ? "" : ", ") + std::to_string(count) + " " + what;
    };
    add(found.other_package, "of other packages");
    add(found.other_source, "of sources " + m_manifest.string() + " does not have");
    add(found.listed, "of names it lists already");
    std::string line = std::to_string(found.names.size()) + " names to add";
    if (!skipped.empty()) line += "; records skipped: " + skipped;
    std::cerr << diagnostic(Location{}, "note", line) << "\n";
  }

  int write_manifest(const harvest::Harvest& found) const {
    if (found.names.empty()) return k_exit_ok;   // the manifest is left as it is, to the byte
    const std::optional<std::string> text = read_text_file(m_manifest);
    if (!text) return fail(k_exit_bad_input, Error{"cannot read " + m_manifest.string()});
    Result<std::string> edited = harvest::add_to_manifest(*text, m_manifest.string(), found.names);
    if (!edited) return fail(k_exit_bad_input, edited.error());
    // Edited in place as an editor would: a linked manifest stays a link (its target is rewritten),
    // and the file keeps its permissions.
    std::error_code ec;
    const fs::path target = fs::canonical(m_manifest, ec);
    if (Status s = write_file_atomically(ec ? m_manifest : target, std::as_bytes(std::span(edited->data(), edited->size())),
                                         Permissions::of_replaced_file);
        !s)
      return fail(k_exit_environment, s.error());
    return k_exit_ok;
  }

  std::vector<std::string> m_caches;
  fs::path m_manifest = "kiln.toml";
  fs::path m_output;
  bool m_write = false;
};

}  // namespace

std::unique_ptr<Command> make_harvest_command() { return std::make_unique<HarvestCommand>(); }

}  // namespace kiln::cli

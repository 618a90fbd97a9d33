// kiln cache stats|clear|trim: the user's cache (store/local_store.hpp), wherever KILN_CACHE_DIR,
// XDG_CACHE_HOME or HOME put it, or --cache-dir. KILN_CACHE=0 turns caching off for builds; these
// commands still reach the directory. kiln cache keygen DIR: a key pair that signs and verifies
// remote cache entries (remote/signing_keys.hpp).
#include "cli/color.hpp"
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "remote/remote_settings.hpp"
#include "remote/signing_keys.hpp"
#include "store/cache_settings.hpp"
#include "store/local_store.hpp"
#include "store/size_spec.hpp"
#include "util/diagnostic.hpp"
#include "util/printable.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <system_error>
#include <iostream>

namespace kiln::cli {

namespace fs = std::filesystem;

namespace {

class CacheCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app.require_subcommand(1);
    app.add_option("--cache-dir", m_cache_dir,
                   "The cache directory (default: $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else ~/.cache/kiln)");
    m_stats = app.add_subcommand("stats", "Show the cache's hits, misses and size");
    m_stats->add_flag("--json", m_json, "Print one JSON object");
    m_stats->add_option("--cache-dir", m_cache_dir, "The cache directory");
    m_clear = app.add_subcommand("clear", "Remove every entry and zero the counters");
    m_clear->add_option("--cache-dir", m_cache_dir, "The cache directory");
    m_trim = app.add_subcommand("trim", "Remove the least recently used entries down to the maximum size");
    m_trim->add_option("--max-size", m_max_size, "The size to trim to (default: $KILN_CACHE_MAX_SIZE, else 5G)");
    m_trim->add_option("--cache-dir", m_cache_dir, "The cache directory");
    m_keygen = app.add_subcommand("keygen",
                                  "Write a new key pair that signs remote cache entries: DIR/" +
                                      std::string(remote::k_signing_key_file) + " (secret, 0600: for builds that "
                                      "write, as KILN_REMOTE_CACHE_SIGNING_KEY) and DIR/" +
                                      remote::k_verify_key_file + " (for every build, as KILN_REMOTE_CACHE_VERIFY_KEY)");
    m_keygen->add_option("DIR", m_key_dir, "The directory for the two files (created if missing); existing keys are never replaced")
        ->required();
  }

  int run() override {
    if (m_keygen->parsed()) return keygen();
    Result<store::CacheSettings> settings = store::cache_settings(m_cache_dir, store::process_environment());
    if (!settings) return fail(k_exit_usage, settings.error().message);
    if (settings->directory.empty())
      return fail(k_exit_environment, "no cache directory: set KILN_CACHE_DIR, XDG_CACHE_HOME or HOME, or use --cache-dir");
    // A missing directory is an empty cache; one that cannot be a directory is the user's mistake.
    std::error_code ec;
    const std::filesystem::file_status status = std::filesystem::status(settings->directory, ec);
    if (ec && ec != std::errc::no_such_file_or_directory)
      return fail(k_exit_environment, "cannot use the cache directory " + settings->directory.string() + ": " + ec.message());
    if (!ec && !std::filesystem::is_directory(status))
      return fail(k_exit_environment, "the cache directory " + settings->directory.string() + " is not a directory");
    store::LocalStore local(settings->directory, settings->max_size);
    if (m_stats->parsed()) return stats(local, *settings);
    if (m_clear->parsed()) {
      const store::LocalStore::Cleared cleared = local.clear();
      std::printf("cleared %s: removed %llu entries, %s", printable(settings->directory.string()).c_str(),
                  static_cast<unsigned long long>(cleared.removed.entries), store::format_size(cleared.removed.bytes).c_str());
      if (cleared.harvest_records > 0)
        std::printf(", and %llu harvest records", static_cast<unsigned long long>(cleared.harvest_records));
      std::printf("\n");
      if (cleared.failures.empty()) return k_exit_ok;
      std::fflush(stdout);
      for (const std::string& failure : cleared.failures) std::cerr << diagnostic(Location{}, "error", failure) << "\n";
      const std::size_t n = cleared.failures.size();
      return fail(k_exit_environment, "the cache " + settings->directory.string() + " is not wholly cleared (" +
                                          std::to_string(n) + (n == 1 ? " problem" : " problems") + " above)");
    }
    std::uint64_t limit = settings->max_size;
    if (!m_max_size.empty()) {
      Result<std::uint64_t> parsed = store::parse_size(m_max_size, "--max-size");
      if (!parsed) return fail(k_exit_usage, parsed.error().message);
      limit = *parsed;
    }
    const store::Usage removed = local.trim(limit);
    const store::Usage left = local.usage();
    std::printf("trimmed %s to %s: removed %llu entries, %s; %llu entries, %s remain\n",
                printable(settings->directory.string()).c_str(),
                limit ? store::format_size(limit).c_str() : "no limit", static_cast<unsigned long long>(removed.entries),
                store::format_size(removed.bytes).c_str(), static_cast<unsigned long long>(left.entries),
                store::format_size(left.bytes).c_str());
    return k_exit_ok;
  }

private:
  int stats(const store::LocalStore& local, const store::CacheSettings& settings) const {
    store::Counters counters = local.counters();
    const store::Usage usage = local.usage();
    if (m_json) {
      nlohmann::json out{{"directory", settings.directory.string()},
                         {"enabled", settings.enabled},
                         {"compile", {{"hits", counters["compile.hits"]}, {"misses", counters["compile.misses"]}}},
                         {"scan", {{"hits", counters["scan.hits"]}, {"misses", counters["scan.misses"]}}},
                         {"remote",
                          {{"url", remote_url()},
                           {"hits", counters["remote.hits"]},
                           {"misses", counters["remote.misses"]},
                           {"damaged", counters["remote.damaged"]},
                           {"untrusted", counters["remote.untrusted"]},
                           {"errors", counters["remote.errors"]},
                           {"writes", counters["remote.writes"]}}},
                         {"runtime",
                          {{"hits", counters["runtime.hits"]},
                           {"compiles", counters["runtime.compiles"]},
                           {"compiled_bytes", counters["runtime.compiled_bytes"]}}},
                         {"entries", usage.entries},
                         {"size", usage.bytes},
                         {"max_size", settings.max_size}};
      std::cout << printed_json(out) << "\n";
      return k_exit_ok;
    }
    const auto line = [](const char* name, const std::string& value) {
      std::printf("%-16s %s\n", name, printable(value).c_str());   // printf passes no filter (color.hpp)
    };
    line("cache directory", settings.directory.string() + (settings.enabled ? "" : " (off: KILN_CACHE=0)"));
    line("compile hits", std::to_string(counters["compile.hits"]));
    line("compile misses", std::to_string(counters["compile.misses"]));
    line("scan hits", std::to_string(counters["scan.hits"]));
    line("scan misses", std::to_string(counters["scan.misses"]));
    // What builds got from and gave to KILN_REMOTE_CACHE (damaged and untrusted entries count as misses too).
    line("remote cache", remote_url().empty() ? std::string("none (KILN_REMOTE_CACHE is not set)") : remote_url());
    line("remote hits", std::to_string(counters["remote.hits"]));
    line("remote misses", std::to_string(counters["remote.misses"]) + " (" + std::to_string(counters["remote.damaged"]) +
                              " damaged, " + std::to_string(counters["remote.untrusted"]) + " untrusted)");
    line("remote errors", std::to_string(counters["remote.errors"]));
    line("remote writes", std::to_string(counters["remote.writes"]));
    // What programs compiling kernels at run time did (libkiln, kiln/compile.h).
    line("runtime hits", std::to_string(counters["runtime.hits"]));
    line("runtime compiles", std::to_string(counters["runtime.compiles"]) + " (" +
                                 store::format_size(counters["runtime.compiled_bytes"]) + ")");
    line("entries", std::to_string(usage.entries));
    line("size", store::format_size(usage.bytes) + " of " +
                     (settings.max_size ? store::format_size(settings.max_size) : std::string("no limit")));
    return k_exit_ok;
  }

  int keygen() const {
    Result<remote::KeyFiles> files = remote::write_key_pair(m_key_dir);
    if (!files) return fail(k_exit_environment, files.error().message);
    std::printf("wrote %s: the signing key; give it only to builds that write the remote cache "
                "(KILN_REMOTE_CACHE_SIGNING_KEY=%s)\n",
                files->signing.c_str(), files->signing.c_str());
    std::printf("wrote %s: the verify key (key %s); give it to every build: KILN_REMOTE_CACHE_VERIFY_KEY=%s\n",
                files->verify.c_str(), remote::key_id(files->key).c_str(), remote::to_base64(files->key).c_str());
    return k_exit_ok;
  }

  // The remote cache builds here use now, the password hidden, with its mode (and why the backend made
  // it read only, if it did); "" when none.
  static std::string remote_url() {
    Result<std::optional<remote::RemoteSettings>> settings = remote::remote_settings(store::process_environment());
    if (!settings) return settings.error().message;
    if (!*settings) return "";
    const remote::RemoteSettings& remote = **settings;
    return remote.shown_url + " (" + remote::mode_name(remote.mode) +
           (remote.mode_reason.empty() ? "" : ": " + remote.mode_reason) + ")";
  }

  static int fail(int code, const std::string& message) {
    std::cerr << diagnostic(Location{}, "error", message) << "\n";
    return code;
  }

  fs::path m_cache_dir;
  fs::path m_key_dir;
  std::string m_max_size;
  bool m_json = false;
  CLI::App* m_stats = nullptr;
  CLI::App* m_clear = nullptr;
  CLI::App* m_trim = nullptr;
  CLI::App* m_keygen = nullptr;
};

}  // namespace

std::unique_ptr<Command> make_cache_command() { return std::make_unique<CacheCommand>(); }

}  // namespace kiln::cli

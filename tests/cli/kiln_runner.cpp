#include "kiln_runner.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>

namespace kiln::test {

namespace fs = std::filesystem;

namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

fs::path default_cache_dir(const fs::path& cwd) {
  // One cache per directory kiln runs in, for the life of the test process: builds of one project
  // share it (a second build hits), other projects and tests start cold, and nothing reaches the
  // user's own cache. Destroyed (removed) at exit.
  static std::map<fs::path, std::unique_ptr<ScratchDir>> caches;
  std::unique_ptr<ScratchDir>& dir = caches[fs::absolute(cwd).lexically_normal()];
  if (!dir) dir = std::make_unique<ScratchDir>();
  return dir->path();
}

RunResult run_kiln(const std::vector<std::string>& args, const fs::path& cwd, const std::vector<std::string>& env,
                   int timeout_seconds) {
  ScratchDir io;
  // Bounded: a kiln that hangs fails its test (exit 124) instead of holding the suite.
  std::string command = "cd " + shell_quote(cwd.string()) + " && timeout -k 5 " + std::to_string(timeout_seconds) + " env ";
  bool cache_given = false;
  for (const std::string& e : env) cache_given = cache_given || e.starts_with("KILN_CACHE_DIR=");
  if (!cache_given) command += shell_quote("KILN_CACHE_DIR=" + default_cache_dir(cwd).string()) + " ";
  for (const std::string& e : env) command += shell_quote(e) + " ";
  command += shell_quote(KILN_EXE);
  for (const std::string& a : args) command += " " + shell_quote(a);
  command += " >" + shell_quote((io.path() / "out").string()) + " 2>" + shell_quote((io.path() / "err").string());
  const int status = std::system(command.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text(io.path() / "out");
  r.err = read_text(io.path() / "err");
  return r;
}

ScratchDir::ScratchDir() {
  std::random_device random;
  m_path = fs::temp_directory_path() / ("kiln-test-" + std::to_string(random()) + std::to_string(random()));
  fs::create_directories(m_path);
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  fs::remove_all(m_path, ignored);
}

fs::path ScratchDir::copy_project(const std::string& name, const std::string& dest) const {
  const fs::path target = m_path / dest;
  fs::create_directories(target.parent_path());
  fs::copy(project_fixture(name), target, fs::copy_options::recursive);
  return target;
}

fs::path project_fixture(const std::string& name) { return fs::path(KILN_PROJECTS) / name; }
fs::path example_dir(const std::string& name) { return fs::path(KILN_EXAMPLES) / name; }

std::vector<std::byte> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i) bytes[i] = static_cast<std::byte>(chars[i]);
  return bytes;
}

void write_bytes(const fs::path& path, const std::vector<std::byte>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

}  // namespace kiln::test

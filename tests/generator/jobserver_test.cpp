#include "util/jobserver.hpp"

#include "util/process_pool.hpp"
#include "util/signal_cleanup.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <map>
#include <random>
#include <string>

namespace kiln {
namespace {

namespace fs = std::filesystem;

TEST(ParseMakeflags, ReadsEveryFormMakeWrites) {
  EXPECT_FALSE(parse_makeflags(""));
  EXPECT_FALSE(parse_makeflags("-j4"));   // -j without a jobserver: make runs kiln alone
  const std::optional<JobserverAuth> fifo = parse_makeflags(" -j4 --jobserver-auth=fifo:/tmp/GMfifo123 -- X=1");
  ASSERT_TRUE(fifo);
  EXPECT_EQ(fifo->fifo, "/tmp/GMfifo123");
  const std::optional<JobserverAuth> auth = parse_makeflags("rs -j2 --jobserver-auth=3,4");
  ASSERT_TRUE(auth);
  EXPECT_TRUE(auth->fifo.empty());
  EXPECT_EQ(auth->read_fd, 3);
  EXPECT_EQ(auth->write_fd, 4);
  const std::optional<JobserverAuth> fds = parse_makeflags("--jobserver-fds=5,6 -j");
  ASSERT_TRUE(fds);
  EXPECT_EQ(fds->read_fd, 5);
  EXPECT_EQ(fds->write_fd, 6);
}

TEST(ParseMakeflags, TheLastOneCountsAndNegativeOrBrokenMeansNone) {
  const std::optional<JobserverAuth> last = parse_makeflags("--jobserver-auth=3,4 --jobserver-auth=fifo:/f");
  ASSERT_TRUE(last);
  EXPECT_EQ(last->fifo, "/f");
  EXPECT_FALSE(parse_makeflags("--jobserver-auth=3,4 --jobserver-fds=-2,-2"));
  EXPECT_FALSE(parse_makeflags("--jobserver-auth=3"));
  EXPECT_FALSE(parse_makeflags("--jobserver-auth=a,b"));
  EXPECT_FALSE(parse_makeflags("--jobserver-auth=3,4x"));
}

TEST(Jobserver, DescriptorsThatAreNotOpenPipesAreRefused) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);
  close(fds[1]);
  Result<std::unique_ptr<Jobserver>> closed = Jobserver::connect({{}, fds[0], fds[1]});
  ASSERT_FALSE(closed);
  EXPECT_NE(closed.error().message.find("not open"), std::string::npos) << closed.error().message;
  const int file = open("/dev/null", O_RDWR);
  EXPECT_FALSE(Jobserver::connect({{}, file, file})) << "a descriptor make did not pass may be any file";
  close(file);
  EXPECT_FALSE(Jobserver::connect({"/nonexistent/fifo", -1, -1}));
}

// A jobserver as make keeps it: a pipe holding `tokens` bytes.
struct FakeMake {
  int fds[2] = {-1, -1};
  explicit FakeMake(const std::string& tokens) {
    if (pipe(fds) != 0) std::abort();
    if (write(fds[1], tokens.data(), tokens.size()) != static_cast<ssize_t>(tokens.size())) std::abort();
  }
  ~FakeMake() {
    close(fds[0]);
    close(fds[1]);
  }
  // The tokens in the pipe now (taken out and put back).
  std::string tokens() const {
    const int flags = fcntl(fds[0], F_GETFL);
    fcntl(fds[0], F_SETFL, flags | O_NONBLOCK);
    std::string out(4096, '\0');
    const ssize_t n = read(fds[0], out.data(), out.size());
    out.resize(n < 0 ? 0 : static_cast<std::size_t>(n));
    fcntl(fds[0], F_SETFL, flags);
    if (!out.empty() && write(fds[1], out.data(), out.size()) < 0) std::abort();
    std::sort(out.begin(), out.end());
    return out;
  }
  std::unique_ptr<Jobserver> connect() const { return Jobserver::connect({{}, fds[0], fds[1]}).value(); }
};

double now() {
  struct timespec t {};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

fs::path scratch_dir() {
  const fs::path dir = fs::temp_directory_path() / ("kiln-jobserver-test-" + std::to_string(getpid()) + "-" +
                                                    std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  return dir;
}

// Runs `count` workers that each sleep a while, under `jobserver`, and returns the most that ran at once.
std::size_t most_at_once(std::size_t count, int parallel, Jobserver* jobserver,
                         const std::function<void(std::size_t)>& fail) {
  const fs::path scratch = scratch_dir();
  std::map<std::size_t, std::pair<double, double>> spans;
  ProcessPoolSettings settings{parallel, scratch, "t-"};
  settings.jobserver = jobserver;
  run_in_processes(
      count, settings,
      [&](std::size_t i) {
        const double start = now();
        fail(i);
        usleep(150 * 1000);
        const double times[2] = {start, now()};
        std::vector<std::byte> bytes(sizeof times);
        std::memcpy(bytes.data(), times, sizeof times);
        return bytes;
      },
      [&](std::size_t i, WorkerResult r) {
        double times[2] = {0, 0};
        if (r.bytes && r.bytes->size() == sizeof times) std::memcpy(times, r.bytes->data(), sizeof times);
        spans[i] = {times[0], times[1]};
      });
  fs::remove_all(scratch);
  EXPECT_EQ(spans.size(), count);
  std::size_t most = 0;
  for (const auto& [i, span] : spans) {
    if (span.first == 0) continue;   // a worker that failed on purpose
    std::size_t overlapping = 0;
    for (const auto& [j, other] : spans)
      if (other.first != 0 && other.first <= span.first && span.first < other.second) ++overlapping;
    most = std::max(most, overlapping);
  }
  return most;
}

TEST(Jobserver, WorkersRunOnTokensAndEveryTokenComesBack) {
  FakeMake make("ab");   // make -j3: two tokens in the pipe, one implicit
  std::unique_ptr<Jobserver> jobserver = make.connect();
  const std::size_t most = most_at_once(8, 64, jobserver.get(), [](std::size_t) {});
  // At most the tokens plus one; more than one shows the tokens are used (a busy machine may start
  // workers too late to overlap all three).
  EXPECT_LE(most, 3u) << "-j 64 is only a cap: the jobserver decides";
  EXPECT_GT(most, 1u);
  EXPECT_EQ(jobserver->held(), 0);
  EXPECT_EQ(make.tokens(), "ab") << "the bytes read are the bytes given back";
}

TEST(Jobserver, MinusJCapsTheJobserver) {
  FakeMake make("+++++");
  std::unique_ptr<Jobserver> jobserver = make.connect();
  EXPECT_LE(most_at_once(6, 2, jobserver.get(), [](std::size_t) {}), 2u);
  EXPECT_EQ(make.tokens(), "+++++");
}

TEST(Jobserver, NoTokenFreeMeansOneWorker) {
  FakeMake make("");
  std::unique_ptr<Jobserver> jobserver = make.connect();
  EXPECT_EQ(most_at_once(3, 8, jobserver.get(), [](std::size_t) {}), 1u);
  EXPECT_EQ(make.tokens(), "");
}

TEST(Jobserver, FailedAndKilledWorkersGiveTheirTokensBack) {
  FakeMake make("++");
  std::unique_ptr<Jobserver> jobserver = make.connect();
  most_at_once(7, 8, jobserver.get(), [](std::size_t i) {
    if (i % 3 == 0) raise(SIGKILL);
    if (i % 3 == 1) _exit(2);
  });
  EXPECT_EQ(jobserver->held(), 0);
  EXPECT_EQ(make.tokens(), "++");
}

TEST(Jobserver, AFifoAsMake44OffersIt) {
  const fs::path dir = scratch_dir();
  const fs::path fifo = dir / "GMfifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int keep = open(fifo.c_str(), O_RDWR);   // make's own end, holding the tokens
  ASSERT_EQ(write(keep, "++", 2), 2);
  const std::optional<JobserverAuth> auth = parse_makeflags("-j3 --jobserver-auth=fifo:" + fifo.string());
  ASSERT_TRUE(auth);
  Result<std::unique_ptr<Jobserver>> jobserver = Jobserver::connect(*auth);
  ASSERT_TRUE(jobserver) << jobserver.error().message;
  const std::size_t most = most_at_once(6, 16, jobserver->get(), [](std::size_t) {});
  EXPECT_LE(most, 3u);
  EXPECT_GT(most, 1u);
  jobserver->reset();
  char buffer[8];
  fcntl(keep, F_SETFL, O_NONBLOCK);
  EXPECT_EQ(read(keep, buffer, sizeof buffer), 2);
  close(keep);
  fs::remove_all(dir);
}

TEST(Jobserver, AKilledBuildGivesItsTokensBack) {
  FakeMake make("++");
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    cleanup::install_signal_handlers();
    std::unique_ptr<Jobserver> jobserver = make.connect();
    const fs::path scratch = scratch_dir();
    const cleanup::ScopedPath remove(scratch);
    ProcessPoolSettings settings{4, scratch, "t-"};
    settings.jobserver = jobserver.get();
    run_in_processes(3, settings, [](std::size_t) -> std::vector<std::byte> { pause(); _exit(0); },
                     [](std::size_t, WorkerResult) {});
    _exit(0);
  }
  // Wait until the build holds both tokens, then end it as make does on ^C.
  for (int i = 0; i < 200 && make.tokens().size() != 0; ++i) usleep(10 * 1000);
  usleep(50 * 1000);
  kill(child, SIGTERM);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  EXPECT_EQ(make.tokens(), "++");
}

}  // namespace
}  // namespace kiln

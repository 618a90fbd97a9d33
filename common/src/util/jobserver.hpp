// A client of GNU make's jobserver: `make -jN` (and ninja >= 1.13) hands its children N-1 tokens
// through a pipe or a named fifo; each holds one implicit token and reads one more byte before
// starting every further job, and writes the byte back when that job ends. With it, two `kiln
// build`s under `make -j4` run four compiles between them, not four each.
//
// MAKEFLAGS names the jobserver: `--jobserver-auth=fifo:PATH` (make >= 4.4), `--jobserver-auth=R,W`
// (make 4.2, 4.3) or `--jobserver-fds=R,W` (older). Descriptors that are not open pipes (a rule
// without `+` or `$(MAKE)` in make < 4.4 runs with them closed) are ignored with a warning, as make does.
#pragma once

#include "util/result.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace kiln {

struct JobserverAuth {
  std::string fifo;        // the fifo's path, or empty for the descriptors below
  int read_fd = -1;
  int write_fd = -1;
};

// The jobserver MAKEFLAGS offers (the last one named, as make reads it), or nothing. Negative
// descriptors (make's way of saying "none") are nothing.
std::optional<JobserverAuth> parse_makeflags(std::string_view makeflags);

class Jobserver {
public:
  // Opens the fifo, or checks the descriptors and opens the pipe again for non-blocking reads (the
  // inherited description is shared with make, whose reads must stay blocking). The error says why
  // not: the caller warns and runs without a jobserver.
  static Result<std::unique_ptr<Jobserver>> connect(const JobserverAuth& auth);
  // The jobserver MAKEFLAGS (from the environment) names, null when it names none; connect's error
  // when it names one that cannot be used (the caller warns and runs without one).
  static Result<std::unique_ptr<Jobserver>> from_environment();

  ~Jobserver();   // gives back every token still held
  Jobserver(const Jobserver&) = delete;
  Jobserver& operator=(const Jobserver&) = delete;

  // Takes one token if one is free now; never blocks.
  bool try_acquire();
  // Gives back a token taken by try_acquire.
  void release();
  // Waits up to `milliseconds` for a token to be offered (one may still be taken by someone else).
  void wait(int milliseconds) const;
  int held() const { return static_cast<int>(m_tokens.size()); }

private:
  Jobserver(int read_fd, int write_fd, bool owns_write);
  void publish() const;

  int m_read_fd;
  int m_write_fd;
  bool m_owns_write;
  bool m_gone = false;
  std::string m_tokens;   // the bytes read, given back as they came
};

}  // namespace kiln

// Work done once for the whole process or object, whatever the threads, as std::call_once does, but
// without the system call std::call_once makes: glibc ends every first run with a futex wake-up,
// whether or not a thread waits, and a first open or first kernel request would pay it (2-5 us on a
// GPU host). An uncontended mutex makes no system call.
#pragma once

#include <atomic>
#include <mutex>
#include <utility>

namespace kiln {

class Once {
public:
  // Runs `work` unless a call has run it to completion; a concurrent call waits for that one. A
  // `work` that throws leaves it to run again on the next call, as std::call_once does.
  template <class Work>
  void run(Work&& work) {
    if (m_done.load(std::memory_order_acquire)) return;
    std::lock_guard lock(m_mutex);
    if (m_done.load(std::memory_order_relaxed)) return;
    std::forward<Work>(work)();
    m_done.store(true, std::memory_order_release);
  }

private:
  std::mutex m_mutex;
  std::atomic<bool> m_done{false};
};

}  // namespace kiln

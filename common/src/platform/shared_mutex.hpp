// A reader-writer lock for the runtime's tables of loaded kernels, images and devices.
#pragma once

#include <shared_mutex>   // std::shared_mutex on POSIX; std::shared_lock for every user

namespace kiln::platform {

#if defined(_WIN32)
// Windows: a slim reader/writer lock (SRWLOCK), which needs no set-up and no allocation. MinGW's
// std::shared_mutex is winpthreads' rwlock, whose state is made on first use; threads taking a
// new lock at once raced in it (runtime_tests under Wine crashed in pthread_rwlock_rdlock or
// spun for good). Meets the standard's SharedMutex requirements: std::shared_lock and
// std::unique_lock take it.
class SharedMutex {
 public:
  SharedMutex() noexcept = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void lock() noexcept;
  bool try_lock() noexcept;
  void unlock() noexcept;
  void lock_shared() noexcept;
  bool try_lock_shared() noexcept;
  void unlock_shared() noexcept;

 private:
  void* m_lock = nullptr;   // the SRWLOCK itself: one pointer, SRWLOCK_INIT is all zero
};
#else
using SharedMutex = std::shared_mutex;
#endif

}  // namespace kiln::platform

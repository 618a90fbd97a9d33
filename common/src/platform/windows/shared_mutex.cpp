#include "platform/shared_mutex.hpp"

#include <windows.h>

namespace kiln::platform {
namespace {

static_assert(sizeof(SRWLOCK) == sizeof(void*), "SharedMutex holds an SRWLOCK in one pointer");

PSRWLOCK srw(void*& storage) {
  return reinterpret_cast<PSRWLOCK>(&storage);
}

}  // namespace

void SharedMutex::lock() noexcept { AcquireSRWLockExclusive(srw(m_lock)); }
bool SharedMutex::try_lock() noexcept { return TryAcquireSRWLockExclusive(srw(m_lock)) != 0; }
void SharedMutex::unlock() noexcept { ReleaseSRWLockExclusive(srw(m_lock)); }
void SharedMutex::lock_shared() noexcept { AcquireSRWLockShared(srw(m_lock)); }
bool SharedMutex::try_lock_shared() noexcept { return TryAcquireSRWLockShared(srw(m_lock)) != 0; }
void SharedMutex::unlock_shared() noexcept { ReleaseSRWLockShared(srw(m_lock)); }

}  // namespace kiln::platform

/* Crashes on a second thread, for windows.a_crash_fails. Under Wine with its debugger (winedbg)
   on, a crash on any thread but the first ended the process with status 0 in about half of the
   runs: a test binary that crashed there passed. run_under_wine.sh turns the debugger off; this
   program checks it stays so. */
#include <process.h>
#include <stdio.h>
#include <windows.h>

static unsigned __stdcall crash(void* unused) {
  (void)unused;
  volatile int* nowhere = (volatile int*)(~(size_t)0);
  return (unsigned)*nowhere;
}

int main(void) {
  puts("crash_in_thread: crashing on a second thread");
  fflush(stdout);
  HANDLE thread = (HANDLE)_beginthreadex(NULL, 0, crash, NULL, 0, NULL);
  if (thread == NULL) return 3;
  WaitForSingleObject(thread, INFINITE);
  puts("crash_in_thread: the thread returned, which it cannot");
  return 0;
}

/* consumer_static's host: loads ext_a.so and ext_b.so (beside it) with dlopen, RTLD_LOCAL or, with
 * the argument "global", RTLD_GLOBAL, as a Python interpreter might, and checks that each module
 * reads the package with its own runtime: no runtime symbol is visible to the process, and a
 * failure in one module's copy leaves the other's last error untouched. Prints what it found;
 * exits non-zero on the first mismatch. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int (*open_fn)(const char*, char*, size_t);
typedef const char* (*last_error_fn)(void);

static int fail(const char* what, const char* detail) {
  fprintf(stderr, "host: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  return 1;
}

int main(int argc, char** argv) {
  const int global = argc > 1 && strcmp(argv[1], "global") == 0;
  const int mode = RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL);
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", argv[0]);
  char* slash = strrchr(dir, '/');
  if (slash) *slash = '\0'; else strcpy(dir, ".");

  open_fn open[2];
  last_error_fn last_error[2];
  void* handles[2];
  const char* names[2] = {"ext_a", "ext_b"};
  for (int i = 0; i < 2; ++i) {
    char path[4200], symbol[64];
    snprintf(path, sizeof path, "%s/%s.so", dir, names[i]);
    void* handle = handles[i] = dlopen(path, mode);
    if (!handle) return fail("dlopen", dlerror());
    snprintf(symbol, sizeof symbol, "%s_open", names[i]);
    open[i] = (open_fn)dlsym(handle, symbol);
    snprintf(symbol, sizeof symbol, "%s_last_error", names[i]);
    last_error[i] = (last_error_fn)dlsym(handle, symbol);
    if (!open[i] || !last_error[i]) return fail("a probe function is missing from", names[i]);
  }
  if (dlsym(RTLD_DEFAULT, "kiln_version") || dlsym(RTLD_DEFAULT, "kiln_package_open_file"))
    return fail("a kiln_ symbol is visible to the process", global ? "RTLD_GLOBAL" : "RTLD_LOCAL");

  for (int i = 0; i < 2; ++i) {
    char out[1024];
    if (open[i](PACKAGE_FILE, out, sizeof out) != 0) return fail(names[i], out);
    printf("%s: %s\n", names[i], out);
  }
  /* A failure in ext_a's copy sets its last error only. */
  char out[1024];
  if (open[0]("/nonexistent/missing.kiln", out, sizeof out) == 0) return fail("ext_a opened a missing file", NULL);
  if (!strstr(last_error[0](), "missing.kiln")) return fail("ext_a's last error", last_error[0]());
  if (strstr(last_error[1](), "missing.kiln")) return fail("ext_b shares ext_a's last error", last_error[1]());
  /* ext_b links its own static zstd beside the runtime's: both work, neither replaced the other. */
  typedef int (*own_zstd_fn)(void);
  own_zstd_fn own_zstd = (own_zstd_fn)dlsym(handles[1], "ext_b_own_zstd");
  if (!own_zstd) return fail("ext_b_own_zstd is missing", NULL);
  if (own_zstd() != 0) return fail("ext_b's own zstd round trip failed", NULL);
  printf("own zstd beside the runtime's: ok\n");
  printf("separate runtimes (%s)\n", global ? "RTLD_GLOBAL" : "RTLD_LOCAL");
  return 0;
}

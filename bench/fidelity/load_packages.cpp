/* The fidelity benchmark's GPU check: opens every package given and asks for every kernel it holds,
 * by its lowered name (every kernel has one; a canonical name may be shared and left out), through
 * kiln_package_get_kernel, which chooses the image, loads it with cuLibraryLoadData and resolves the
 * kernel. The driver loads lazily, so each kernel is also taken into the current context
 * (cuKernelGetFunction) and asked for its register count, which only a loaded function answers.
 *
 *   load_packages PACKAGE...      prints one line per failure and a summary; exit 0 when all load,
 *                                 1 when one does not, 125 without a GPU.
 * kiln.h, and the driver through dlopen: it builds where Kiln's runtime builds, without CUDA. */
#include <kiln/kiln.h>

#include <dlfcn.h>
#include <cstdio>

using KernelGetFunction = int (*)(void** function, void* kernel);
using FuncGetAttribute = int (*)(int* value, int attribute, void* function);

int main(int argc, char** argv) {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  auto kernel_get_function =
      reinterpret_cast<KernelGetFunction>(cuda ? dlsym(cuda, "cuKernelGetFunction") : nullptr);
  auto func_get_attribute = reinterpret_cast<FuncGetAttribute>(cuda ? dlsym(cuda, "cuFuncGetAttribute") : nullptr);
  if (!kernel_get_function || !func_get_attribute) {
    std::fprintf(stderr, "load_packages: no CUDA driver (libcuda.so.1)\n");
    return 125;
  }
  std::size_t packages = 0, kernels = 0, loaded = 0;
  for (int i = 1; i < argc; ++i) {
    kiln_package* package = nullptr;
    if (kiln_package_open_file(argv[i], &package) != KILN_STATUS_SUCCESS) {
      std::printf("FAIL %s: %s\n", argv[i], kiln_last_error());
      continue;
    }
    ++packages;
    for (std::size_t k = 0; k < kiln_package_kernel_count(package); ++k) {
      const char* name = kiln_package_kernel_lowered_name(package, k);
      kiln_kernel* kernel = nullptr;
      void* handle = nullptr;
      void* function = nullptr;
      int registers = 0;
      ++kernels;
      kiln_status status = kiln_package_get_kernel(package, name, &kernel);
      if (status == KILN_STATUS_NO_DEVICE || status == KILN_STATUS_NO_DRIVER) {
        std::fprintf(stderr, "load_packages: %s\n", kiln_package_last_error(package));
        return 125;
      }
      if (status == KILN_STATUS_SUCCESS) status = kiln_kernel_handle(kernel, &handle);
      if (status != KILN_STATUS_SUCCESS) {
        std::printf("FAIL %s: %s: %s\n", argv[i], name, kiln_package_last_error(package));
        continue;
      }
      const int r = kernel_get_function(&function, handle);
      const int a = r == 0 ? func_get_attribute(&registers, 4 /* CU_FUNC_ATTRIBUTE_NUM_REGS */, function) : r;
      if (r != 0 || a != 0) {
        std::printf("FAIL %s: %s: cuKernelGetFunction %d, cuFuncGetAttribute %d\n", argv[i], name, r, a);
        continue;
      }
      ++loaded;
    }
    kiln_package_destroy(package);
  }
  std::printf("load_packages: %zu of %zu packages opened, %zu of %zu kernels loaded\n", packages, static_cast<std::size_t>(argc) - 1, loaded,
         kernels);
  return packages == static_cast<std::size_t>(argc) - 1 && loaded == kernels ? 0 : 1;
}

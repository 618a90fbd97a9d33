/* Run once when Kiln is configured (CMakeLists.txt): NVRTC's and nvJitLink's versions and NVRTC's
   architectures, as "nvrtc_major nvrtc_minor nvjitlink_major nvjitlink_minor arch...", which kiln
   then knows without loading the libraries (nvrtc_library.hpp), and which kiln_add_cache in Kiln's
   own tree expands all, all-major and its default from and checks targets against
   (check/nvrtc_facts.hpp reads them). */
#include <nvJitLink.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int major = 0, minor = 0, count = 0;
  unsigned link_major = 0, link_minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS || nvJitLinkVersion(&link_major, &link_minor) != NVJITLINK_SUCCESS ||
      nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0)
    return 1;
  int* archs = malloc(sizeof(int) * (size_t)count);
  if (archs == NULL || nvrtcGetSupportedArchs(archs) != NVRTC_SUCCESS) return 1;
  printf("%d %d %u %u", major, minor, link_major, link_minor);
  for (int i = 0; i < count; ++i) printf(" %d", archs[i]);
  printf("\n");
  free(archs);
  return 0;
}

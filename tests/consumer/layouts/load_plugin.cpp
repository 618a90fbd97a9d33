// A program of consumer_layouts: loads the plugin named by its argument and has it open its package.
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: load_plugin <plugin>\n");
    return 2;
  }
  void* plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (plugin == nullptr) {
    std::fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  auto open_package = reinterpret_cast<int (*)()>(dlsym(plugin, "open_package"));
  if (open_package == nullptr) {
    std::fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  return open_package();
}

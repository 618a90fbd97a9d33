// A pybind11 extension calling Kiln from C++: finds its package by name, beside this module, and
// reports what it holds and which runtime copy (this module's own) it uses. No GPU needed.
#include <kiln/kiln.hpp>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

namespace {

std::vector<std::string> kernel_names() {
  const kiln::Package package = kiln::Package::open("mypkg_kernels");
  std::vector<std::string> names;
  for (std::size_t i = 0; i < kiln_package_kernel_count(package.get()); ++i)
    names.emplace_back(kiln_package_kernel_name(package.get(), i));
  return names;
}

}  // namespace

PYBIND11_MODULE(_ext, m) {
  m.def("kernel_names", &kernel_names, "The kernels of the package installed beside this module");
  m.def("runtime_version", [] { return kiln_version(); });
  // A kiln::Error crosses into Python as RuntimeError with Kiln's message.
  m.def("open_missing", [] { kiln::Package::open("no_such_package"); });
}

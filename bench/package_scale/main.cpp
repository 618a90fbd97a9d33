// package_scale: what opening a package and finding a kernel by name cost as the package grows
// (README.md). For each --kernels count, writes a package of that many kernel template
// instantiations ("tile_sum<float, 64, 3>", with their mangled names) in units of 100, each unit with
// a cubin for each of 8 targets (a minimal well-formed ELF of 4 KiB: open and lookup never read
// images), then measures through libkiln.so as programs use it:
//
//   open     kiln_package_open_file, per open (median of --runs; the page cache warm)
//   lookup   kiln_package_find_kernel by name as a program writes it ("tile_sum<float, 64, 3>",
//            normalized before the lookup), every kernel once in a shuffled order, per lookup (median
//            of --runs rounds), the first round after the open: for an index read by pages
//            (64 KiB or more: docs/runtime.md, "Large indexes") it includes reading and
//            checking every page and each kernel's records; "stored" the same by the spelling the package stores
//            ("tile_sum<float,64,3>", which needs no normalizing); "packed" both again, the
//            names copied into one buffer in the order they are looked up, as a program's string
//            literals lie, rather than each in its own heap block visited at random (a cache miss
//            of the harness's own, which the unpacked columns include)
//
//   package_scale_bench [--kernels 100,1000,10000] [--runs 31] [--dir /tmp] [--keep]
//
// --keep leaves each package in --dir (package_scale_<kernels>.kiln), for a profiler.
#include "writer/package_writer.hpp"

#include <kiln/kiln.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* k_targets[] = {"sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120", "compute_80", "compute_90"};
constexpr std::size_t k_kernels_per_unit = 100;

std::vector<std::byte> cubin(unsigned sm) {
  std::vector<std::byte> out(4096);
  const auto put = [&](std::size_t at, auto value) { std::memcpy(out.data() + at, &value, sizeof value); };
  std::memcpy(out.data(), "\x7f" "ELF\x02\x01\x01", 7);
  out[8] = std::byte{8};
  put(16, std::uint16_t{2});
  put(18, std::uint16_t{190});
  put(40, std::uint64_t{4096 - 64});
  put(48, std::uint32_t{sm << 8});
  put(52, std::uint16_t{64});
  put(58, std::uint16_t{64});
  put(60, std::uint16_t{1});
  return out;
}

std::vector<std::byte> ptx() {
  const std::string text = ".version 9.0\n.target sm_80\n.address_size 64\n";
  std::vector<std::byte> out(text.size() + 1);
  std::memcpy(out.data(), text.data(), text.size());
  return out;
}

const char* k_types[] = {"float", "double", "int", "unsigned int", "long long", "short", "signed char", "__half"};
const char* k_mangled[] = {"f", "d", "i", "j", "x", "s", "a", "6__half"};

// The i-th kernel: "ops::tile_sum<float, 64, 3>" and its Itanium mangling.
std::pair<std::string, std::string> kernel_names(std::size_t i) {
  const std::size_t type = i % 8, block = 32 << (i / 8 % 5), items = i / 40;
  const std::string canonical = "ops::tile_sum<" + std::string(k_types[type]) + ", " + std::to_string(block) + ", " +
                                std::to_string(items) + ">";
  const std::string mangled = "_ZN3ops8tile_sumI" + std::string(k_mangled[type]) + "Li" + std::to_string(block) + "ELi" +
                              std::to_string(items) + "EEEvPKT_PS1_i";
  return {canonical, mangled};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Figures {
  std::size_t bytes = 0;
  double open_ms = 0;
  double lookup_ns = 0;
  double stored_ns = 0;
  double packed_ns = 0;
  double stored_packed_ns = 0;
};

// Every name found once, in the order given; nanoseconds per lookup.
double lookup_each(kiln_package* package, const std::vector<const char*>& names) {
  std::size_t found = 0;
  const auto start = Clock::now();
  for (const char* name : names) {
    std::size_t index = 0;
    found += kiln_package_find_kernel(package, name, &index) == KILN_STATUS_SUCCESS;
  }
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count() / static_cast<double>(names.size());
  if (found != names.size()) {
    std::fprintf(stderr, "package_scale: found %zu of %zu kernels\n", found, names.size());
    std::exit(1);
  }
  return ns;
}

// The names where they lie: each std::string's own heap block.
std::vector<const char*> scattered(const std::vector<std::string>& names) {
  std::vector<const char*> out;
  for (const std::string& name : names) out.push_back(name.c_str());
  return out;
}

// The names copied one after the other into `buffer`, in their order.
std::vector<const char*> packed(const std::vector<std::string>& names, std::string& buffer) {
  std::vector<std::size_t> offsets;
  for (const std::string& name : names) {
    offsets.push_back(buffer.size());
    buffer.append(name).push_back('\0');
  }
  std::vector<const char*> out;
  for (const std::size_t at : offsets) out.push_back(buffer.data() + at);
  return out;
}

Figures measure(std::size_t count, int runs, const std::string& dir, bool keep) {
  kiln::format::PackageContents contents;
  for (const char* t : k_targets) contents.targets.push_back(t);
  std::vector<std::string> names, stored;
  for (std::size_t u = 0; u * k_kernels_per_unit < count; ++u) {
    kiln::format::PackageUnit unit{"kernels/unit_" + std::to_string(u) + ".cu", {}};
    for (const char* t : k_targets) {
      const std::string target = t;
      if (target.rfind("compute_", 0) == 0)
        unit.images.push_back({target, ptx(), 90});
      else
        unit.images.push_back({target, cubin(static_cast<unsigned>(std::stoul(target.substr(3)))), 0});
    }
    contents.units.push_back(std::move(unit));
    for (std::size_t k = u * k_kernels_per_unit; k < std::min(count, (u + 1) * k_kernels_per_unit); ++k) {
      const auto [canonical, mangled] = kernel_names(k);
      kiln::format::PackageKernel kernel;
      kernel.lowered_name = mangled;
      kernel.canonical_name = canonical;
      kernel.unit_source = contents.units.back().source;
      kernel.flags = kiln::format::k_kernel_template;
      kernel.names = {canonical};
      contents.kernels.push_back(std::move(kernel));
      names.push_back(canonical);
      std::string compact;
      for (const char c : canonical)
        if (c != ' ' || (compact.back() != ',' && compact.back() != '<')) compact += c;
      stored.push_back(compact);
    }
  }
  kiln::format::WriteOptions options;
  options.compress = false;
  const kiln::Result<std::vector<std::byte>> written = kiln::format::write_package(contents, options);
  if (!written) {
    std::fprintf(stderr, "package_scale: %s\n", written.error().message.c_str());
    std::exit(1);
  }
  const std::string path = dir + "/package_scale_" + std::to_string(count) + ".kiln";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(written->data()), static_cast<std::streamsize>(written->size()));

  Figures figures;
  figures.bytes = written->size();
  std::vector<double> open_ms, lookup_ns, stored_ns, packed_ns, stored_packed_ns;
  std::mt19937 random(7);
  for (int run = 0; run < runs; ++run) {
    kiln_package* package = nullptr;
    const auto start = Clock::now();
    if (kiln_package_open_file(path.c_str(), &package) != KILN_STATUS_SUCCESS) {
      std::fprintf(stderr, "package_scale: %s\n", kiln_last_error());
      std::exit(1);
    }
    open_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    std::shuffle(names.begin(), names.end(), random);
    lookup_ns.push_back(lookup_each(package, scattered(names)));
    std::shuffle(stored.begin(), stored.end(), random);
    stored_ns.push_back(lookup_each(package, scattered(stored)));
    std::shuffle(names.begin(), names.end(), random);
    std::string buffer;
    packed_ns.push_back(lookup_each(package, packed(names, buffer)));
    std::shuffle(stored.begin(), stored.end(), random);
    std::string stored_buffer;
    stored_packed_ns.push_back(lookup_each(package, packed(stored, stored_buffer)));
    kiln_package_destroy(package);
  }
  if (!keep) std::remove(path.c_str());
  figures.open_ms = median(open_ms);
  figures.lookup_ns = median(lookup_ns);
  figures.stored_ns = median(stored_ns);
  figures.packed_ns = median(packed_ns);
  figures.stored_packed_ns = median(stored_packed_ns);
  return figures;
}

}  // namespace

int main(int argc, char** argv) {
  std::string counts = "100,1000,10000";
  int runs = 31;
  std::string dir = "/tmp";
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--keep") == 0) {
      keep = true;
    } else if (i + 1 < argc && std::strcmp(argv[i], "--kernels") == 0) {
      counts = argv[++i];
    } else if (i + 1 < argc && std::strcmp(argv[i], "--runs") == 0) {
      runs = std::atoi(argv[++i]);
    } else if (i + 1 < argc && std::strcmp(argv[i], "--dir") == 0) {
      dir = argv[++i];
    } else {
      std::fprintf(stderr, "package_scale: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
  std::printf("| kernels | images | package bytes | open (ms) | lookup (ns) | lookup, stored spelling (ns) |"
              " lookup, packed names (ns) | lookup, stored spelling, packed names (ns) |\n"
              "|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::stringstream list(counts);
  for (std::string item; std::getline(list, item, ',');) {
    const std::size_t count = std::stoul(item);
    const Figures f = measure(count, runs, dir, keep);
    const std::size_t units = (count + k_kernels_per_unit - 1) / k_kernels_per_unit;
    std::printf("| %zu | %zu | %zu | %.3f | %.1f | %.1f | %.1f | %.1f |\n", count, units * 8, f.bytes, f.open_ms,
                f.lookup_ns, f.stored_ns, f.packed_ns, f.stored_packed_ns);
  }
  return 0;
}

// kiln verify: no bytes after file_size and only zeros in the header past offset 64, every checksum,
// every image decodes, each cubin's ELF header agrees with its recorded target, each PTX image with
// its .target, and every kernel of a unit is a kernel symbol in each of the unit's images that the
// package says holds it. Exit 0 when all hold, 1 when any does not (each problem is printed).
#include "cli/color.hpp"
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/package_file.hpp"
#include "cli/verify_carried.hpp"
#include "cli/verify_coverage.hpp"
#include "format/image_check.hpp"
#include "format/split_files.hpp"
#include "image/cubin_reader.hpp"
#include "ptx/ptx_reader.hpp"
#include "util/diagnostic.hpp"

#include <nlohmann/json.hpp>

#include <iostream>
#include <map>
#include <set>
#include <string_view>

namespace kiln::cli {

namespace {

class Verifier {
public:
  explicit Verifier(const format::PackageReader& reader) : m_reader(reader) {}

  std::vector<std::string> run() {
    if (Status sections = m_reader.verify_all_sections(); !sections) m_problems.push_back(error_text(sections.error()));
    if (Status index = m_reader.check_name_index(); !index) m_problems.push_back(error_text(index.error()));
    group_kernels();
    for (std::uint32_t i = 0; i < m_reader.image_count(); ++i) verify_image(i);
    return m_problems;
  }

private:
  // The lowered names of a unit's kernels: those every image holds, and those only some targets'
  // images hold, by target. Built once, so that checking an image costs its own symbols, never
  // (images x kernels): a hostile unit may have thousands of each.
  struct UnitKernels {
    std::set<std::string_view> everywhere;
    std::map<std::uint32_t, std::set<std::string_view>> by_target;
  };

  void group_kernels() {
    m_units.resize(m_reader.unit_count());
    // Only a file of a split package may leave a kernel to another file: elsewhere no image would
    // ever hold it, and nothing here would check that one does.
    const bool split = m_reader.metadata_value(format::k_split_id_key).has_value();
    std::size_t stranded = 0;
    for (std::uint32_t k = 0; k < m_reader.kernel_count(); ++k) {
      const format::KernelView kernel = m_reader.kernel(k);
      if (!split && m_reader.kernel_in_other_file(k) && stranded++ < k_named_missing) {
        m_problems.push_back("kernel " + std::string(kernel.canonical_name) +
                             " is flagged as in another file of a split package, but the package is not split "
                             "(its METADATA has no split.id): no image holds it");
      }
      UnitKernels& unit = m_units[kernel.unit];
      if (m_reader.kernel_in_every_image(k)) {
        unit.everywhere.insert(kernel.lowered_name);
        continue;
      }
      for (const std::uint32_t target : m_reader.kernel_targets(k)) unit.by_target[target].insert(kernel.lowered_name);
    }
    if (stranded > k_named_missing)
      m_problems.push_back("and " + std::to_string(stranded - k_named_missing) + " more kernels are flagged so");
  }

  // Every kernel the package says the image holds is among its `symbols`. Costs O(symbols) plus a
  // few names: at most k_named_missing missing kernels are named, the rest counted.
  void check_kernels_held(const std::string& label, const format::ImageView& image, const std::set<std::string>& symbols) {
    const UnitKernels& unit = m_units[image.unit];
    const auto partial = unit.by_target.find(image.target);
    const std::size_t held = unit.everywhere.size() + (partial == unit.by_target.end() ? 0 : partial->second.size());
    std::size_t present = 0;
    for (const std::string& symbol : symbols)
      present += unit.everywhere.count(symbol) + (partial == unit.by_target.end() ? 0 : partial->second.count(symbol));
    if (present == held) return;
    // Each name looked at is either missing or one of the (at most symbols.size()) present ones.
    std::size_t named = 0;
    auto name_missing = [&](const std::set<std::string_view>& names) {
      for (const std::string_view kernel : names) {
        if (named == k_named_missing) return;
        if (symbols.count(std::string(kernel))) continue;
        m_problems.push_back(label + ": kernel " + std::string(kernel) + " is not in the image");
        ++named;
      }
    };
    name_missing(unit.everywhere);
    if (partial != unit.by_target.end()) name_missing(partial->second);
    if (held - present > named)
      m_problems.push_back(label + ": and " + std::to_string(held - present - named) + " more kernels are not in the image");
  }

  void verify_image(std::uint32_t index) {
    const format::ImageView image = m_reader.image(index);
    const format::TargetView target = m_reader.target(image.target);
    const std::string label = std::string(m_reader.unit(image.unit).source) + " [" + std::string(target.name) + "]";
    std::vector<std::byte> bytes;
    try {
      Result<std::vector<std::byte>> read = m_reader.read_image(index);
      if (!read) {
        m_problems.push_back(error_text(read.error()));
        return;
      }
      bytes = std::move(*read);
    } catch (const std::bad_alloc&) {
      // The reader bounds raw_size (docs/package-format.md, Limits); a machine may still lack it.
      m_problems.push_back(label + ": not enough memory to decode its " + std::to_string(image.raw_size) + " bytes");
      return;
    }
    // The runtime's own check, before anything reads the image as an ELF file or PTX text. A cubin's
    // SM is compared below, with its variant and -arch, so here it is taken as the cubin says.
    format::Target as_built = target.target;
    if (as_built.kind == format::TargetKind::sass && bytes.size() >= 64) as_built.arch = static_cast<std::uint16_t>(format::cubin_sm(bytes));
    if (const std::string why = format::check_image(bytes, as_built); !why.empty()) {
      m_problems.push_back(label + ": the image " + why);
      return;
    }
    std::set<std::string> symbols;
    if (target.target.kind == format::TargetKind::sass) {
      Result<image::CubinInfo> cubin = image::read_cubin(bytes, label);
      if (!cubin) {
        m_problems.push_back(cubin.error().message);
        return;
      }
      check_cubin(label, target, *cubin);
      for (const image::CubinSymbol& s : cubin->symbols)
        if (s.is_kernel) symbols.insert(s.name);
    } else {
      std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      Result<image::PtxInfo> ptx = image::read_ptx(text, label);
      if (!ptx) {
        m_problems.push_back(ptx.error().message);
        return;
      }
      format::Target expected = target.target;
      expected.kind = format::TargetKind::sass;  // compute_90a PTX says ".target sm_90a"
      if (ptx->target != expected.name())
        m_problems.push_back(label + ": PTX .target is " + ptx->target + ", expected " + expected.name());
      for (const image::PtxEntry& e : ptx->entries) symbols.insert(e.name);
    }
    check_kernels_held(label, image, symbols);
  }

  void check_cubin(const std::string& label, const format::TargetView& target, const image::CubinInfo& cubin) {
    if (cubin.sm != target.target.arch)
      m_problems.push_back(label + ": the cubin's ELF header says sm_" + std::to_string(cubin.sm));
    const bool wants_a = target.target.variant == format::TargetVariant::arch_specific;
    if (cubin.arch_specific != wants_a)
      m_problems.push_back(label + (wants_a ? ": the cubin is not marked architecture-specific"
                                            : ": the cubin is marked architecture-specific ('a')"));
    if (!cubin.toolkit_arch.empty() && cubin.toolkit_arch != target.name)
      m_problems.push_back(label + ": the cubin was built with -arch " + cubin.toolkit_arch);
  }

  static constexpr std::size_t k_named_missing = 10;
  const format::PackageReader& m_reader;
  std::vector<UnitKernels> m_units;
  std::vector<std::string> m_problems;
};

// "app.kiln: error: ops.cu [sm_90]: ...", as every diagnostic is printed (util/diagnostic.hpp). The
// reader's errors come as their error_text, which names the file already ("app.kiln: section ..."):
// it is not repeated.
std::string located_problem(const std::string& package, const std::string& problem) {
  const std::string prefix = package + ": ";
  const std::string rest = problem.starts_with(prefix) ? problem.substr(prefix.size()) : problem;
  return diagnostic(place(package), "error", rest);
}

class VerifyCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app.add_option("package", m_package, "The package file")->required();
    app.add_flag("-q,--quiet", m_quiet, "Print problems only");
    app.add_flag("--json", m_json, "Print the verdict as JSON on stdout (problems stay on stderr too)");
  }

  int run() override {
    Result<std::unique_ptr<PackageFile>> file = open_package_file(m_package);
    if (!file) {
      std::cerr << located_problem(m_package, file.error().message) << "\n";
      if (m_json) std::cout << printed_json(nlohmann::json{{"path", m_package}, {"ok", false}, {"problems", {file.error().message}}}) << "\n";
      return k_exit_bad_input;
    }
    const format::PackageReader& reader = (*file)->reader;
    std::vector<std::string> problems = check_uncovered_bytes((*file)->bytes, m_package);
    const std::vector<std::string> found = Verifier(reader).run();
    problems.insert(problems.end(), found.begin(), found.end());
    const std::vector<std::string> carried = check_carried_sources(reader);
    problems.insert(problems.end(), carried.begin(), carried.end());
    for (const std::string& p : problems) std::cerr << located_problem(m_package, p) << "\n";
    if (m_json)
      std::cout << printed_json(nlohmann::json{{"path", m_package},
                                               {"ok", problems.empty()},
                                               {"problems", problems},
                                               {"sections", reader.section_count()},
                                               {"images", reader.image_count()},
                                               {"kernels", reader.kernel_count()}})
                << "\n";
    if (!problems.empty()) {
      std::cerr << diagnostic(place(m_package), "error",
                              std::to_string(problems.size()) + " problem" + (problems.size() == 1 ? "" : "s") +
                                  " found; the package is not sound")
                << "\n";
      return k_exit_failed;
    }
    if (!m_quiet && !m_json)
      std::cout << m_package << ": ok (" << reader.section_count() << " sections, " << reader.image_count()
                << " images, " << reader.kernel_count() << " kernels)\n";
    return k_exit_ok;
  }

private:
  std::string m_package;
  bool m_quiet = false;
  bool m_json = false;
};

}  // namespace

std::unique_ptr<Command> make_verify_command() { return std::make_unique<VerifyCommand>(); }

}  // namespace kiln::cli

// kiln extract: writes the image (cubin, or PTX) that holds a kernel, for cuobjdump, nvdisasm or
// ptxas. The image is the whole unit's: every kernel compiled with it is in the file too.
#include "cli/command.hpp"
#include "cli/device_spec.hpp"
#include "cli/exit_codes.hpp"
#include "cli/package_file.hpp"
#include "util/diagnostic.hpp"
#include "util/file_io.hpp"
#include "util/same_file.hpp"

#include <filesystem>
#include <iostream>
#include <new>
#include <optional>

namespace kiln::cli {

namespace {

namespace fs = std::filesystem;

struct Failure {
  int exit_code;
  std::string message;
};

// The targets whose images hold `kernel`, as "sm_80 sm_90a compute_80".
std::string targets_holding(const format::PackageReader& reader, std::uint32_t kernel) {
  std::string out;
  for (const std::uint32_t t : reader.kernel_targets(kernel)) out += (out.empty() ? "" : " ") + std::string(reader.target(t).name);
  return out.empty() ? "none in this file" : out;
}

class ExtractCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app.add_option("package", m_package, "The package file")->required();
    app.add_option("kernel", m_kernel, "The kernel, by any name the package records: \"scale<float>\", fill, a symbol")->required();
    app.add_option("--target", m_target, "The image of this target: sm_90a, compute_80");
    app.add_option("--device", m_device, "The image a device of this compute capability loads: sm_89, 8.9 or 89");
    app.add_option("-o,--output", m_output, "The file to write (default: <package name>.<target>.cubin or .ptx)");
  }

  int run() override {
    const std::optional<Failure> failure = extract();
    if (!failure) return k_exit_ok;
    std::cerr << diagnostic(Location{}, "error", failure->message) << "\n";
    return failure->exit_code;
  }

private:
  std::optional<Failure> extract() {
    if (!m_target.empty() && !m_device.empty()) return Failure{k_exit_usage, "--target and --device choose the image both: give one"};
    Result<std::unique_ptr<PackageFile>> file = open_package_file(m_package);
    if (!file) return Failure{k_exit_bad_input, file.error().message};
    const format::PackageReader& reader = (*file)->reader;
    const std::optional<std::uint32_t> kernel = reader.find_kernel(m_kernel);
    if (!kernel) return Failure{k_exit_usage, m_package + ": no kernel '" + m_kernel + "' (kiln inspect lists them)"};
    Result<std::uint32_t> image = choose_image(reader, *kernel);
    if (!image) return Failure{k_exit_usage, image.error().message};

    const format::ImageView view = reader.image(*image);
    const format::TargetView target = reader.target(view.target);
    const bool cubin = target.target.kind == format::TargetKind::sass;
    const fs::path output = m_output.empty() ? default_output(target.name, cubin) : fs::path(m_output);
    if (std::error_code ec; fs::exists(fs::status(output, ec)) && !fs::is_regular_file(fs::status(output, ec)))
      return Failure{k_exit_usage, output.string() + ": exists and is not a regular file"};
    if (same_file(output, m_package)) return Failure{k_exit_usage, output.string() + ": is the package itself"};

    std::vector<std::byte> bytes;
    try {
      Result<std::vector<std::byte>> read = reader.read_image(*image);
      if (!read) return Failure{k_exit_bad_input, error_text(read.error())};
      bytes = std::move(*read);
    } catch (const std::bad_alloc&) {
      return Failure{k_exit_environment, m_package + ": not enough memory to decode its " + std::to_string(view.raw_size) + "-byte image"};
    }
    // A package stores PTX with its terminating NUL (for the driver); the file is text.
    if (!cubin && !bytes.empty() && bytes.back() == std::byte{0}) bytes.pop_back();
    if (Status written = write_file_atomically(output, bytes); !written) return Failure{k_exit_environment, error_text(written.error())};
    std::cout << output.string() << ": " << target.name << (cubin ? " cubin" : " PTX") << " of "
              << reader.unit(view.unit).source << ", " << bytes.size() << " bytes\n";
    return std::nullopt;
  }

  // The image to write: the one --target names, the one --device loads, or the only one that holds
  // the kernel.
  Result<std::uint32_t> choose_image(const format::PackageReader& reader, std::uint32_t kernel) const {
    const format::KernelView k = reader.kernel(kernel);
    const std::string name(k.canonical_name);
    const format::UnitView unit = reader.unit(k.unit);
    std::vector<std::uint32_t> images;
    std::vector<select::Candidate> candidates;
    for (std::uint32_t i = 0; i < unit.image_count; ++i) {
      const format::ImageView image = reader.image(unit.first_image + i);
      if (!reader.kernel_in_target(kernel, image.target)) continue;
      images.push_back(image.index);
      candidates.push_back({reader.target(image.target).target, image.ptx_version});
    }
    if (images.empty()) return Error{m_package + ": kernel " + name + ": no image of this file holds it"};
    if (!m_target.empty()) {
      for (const std::uint32_t i : images)
        if (reader.target(reader.image(i).target).name == m_target) return i;
      return Error{m_package + ": kernel " + name + ": no " + m_target + " image holds it (its targets: " + targets_holding(reader, kernel) + ")"};
    }
    if (!m_device.empty()) {
      Result<select::DeviceProfile> device = parse_device_spec(m_device, false, "", reader);
      if (!device) return device.error();
      const select::Selection s = select::select_image(*device, candidates);
      if (!s.choice) return Error{m_package + ": kernel " + name + ": no image loads on " + m_device + ": " + s.failure.reason};
      return images[s.choice->index];
    }
    if (images.size() == 1) return images[0];
    return Error{m_package + ": kernel " + name + " is in " + std::to_string(images.size()) +
                 " images: choose one with --target (" + targets_holding(reader, kernel) + ") or --device"};
  }

  // "app.sm_80.cubin" beside the current directory, for "app.kiln".
  fs::path default_output(std::string_view target, bool cubin) const {
    return fs::path(m_package).stem().string() + "." + std::string(target) + (cubin ? ".cubin" : ".ptx");
  }

  std::string m_package;
  std::string m_kernel;
  std::string m_target;
  std::string m_device;
  std::string m_output;
};

}  // namespace

std::unique_ptr<Command> make_extract_command() { return std::make_unique<ExtractCommand>(); }

}  // namespace kiln::cli

// kiln inspect: what a package holds, as tables or JSON, with what each kernel of a cubin uses (registers,
// memory, thread limit); with --device, the image each kernel loads.
#include "cli/color.hpp"
#include "cli/command.hpp"
#include "cli/device_spec.hpp"
#include "cli/exit_codes.hpp"
#include "cli/package_file.hpp"
#include "cli/package_report.hpp"
#include "cli/resource_report.hpp"
#include "cli/split_report.hpp"
#include "util/diagnostic.hpp"

#include <iostream>

namespace kiln::cli {

namespace {

class InspectCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app.add_option("package", m_package, "The package file")->required();
    app.add_flag("--json", m_json, "Print JSON instead of tables");
    app.add_option("--device", m_device,
                   "Show which image each kernel loads on this device: sm_89, 8.9 or 89");
    app.add_flag("--integrated", m_integrated, "With --device: the device is integrated (Tegra)");
    app.add_option("--driver", m_driver,
                   "With --device: the driver's CUDA version, e.g. 12.8 (default: the package's NVRTC version)");
  }

  int run() override {
    Result<std::unique_ptr<PackageFile>> file = open_package_file(m_package);
    if (!file) {
      std::cerr << diagnostic(Location{}, "error", file.error().message) << "\n";
      return k_exit_bad_input;
    }
    std::optional<select::DeviceProfile> device;
    if (!m_device.empty()) {
      Result<select::DeviceProfile> parsed = parse_device_spec(m_device, m_integrated, m_driver, (*file)->reader);
      if (!parsed) {
        std::cerr << diagnostic(Location{}, "error", parsed.error().message) << "\n";
        return k_exit_usage;
      }
      device = *parsed;
    }
    nlohmann::json report = package_report((*file)->reader, m_package, (*file)->bytes.size(), device);
    if (device) add_companion_loads(report, *device);
    add_kernel_resources((*file)->reader, report);
    if (m_json)
      std::cout << printed_json(report) << "\n";
    else
      std::cout << render_report(report);
    return k_exit_ok;
  }

private:
  std::string m_package;
  std::string m_device;
  std::string m_driver;
  bool m_integrated = false;
  bool m_json = false;
};

}  // namespace

std::unique_ptr<Command> make_inspect_command() { return std::make_unique<InspectCommand>(); }

}  // namespace kiln::cli

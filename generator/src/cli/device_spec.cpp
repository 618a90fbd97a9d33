#include "cli/device_spec.hpp"

#include <regex>

namespace kiln::cli {

Result<select::DeviceProfile> parse_device_spec(const std::string& device, bool integrated, const std::string& driver,
                                                const format::PackageReader& package) {
  static const std::regex forms(R"((?:sm_(\d{2,3}))|(?:(\d{1,2})\.(\d))|(\d{2,3}))");
  std::smatch m;
  if (!std::regex_match(device, m, forms))
    return Error{"--device '" + device + "' is not a compute capability (sm_89, 8.9 or 89)"};
  int arch = 0;
  if (m[1].matched) arch = std::stoi(m[1].str());
  if (m[2].matched) arch = std::stoi(m[2].str()) * 10 + std::stoi(m[3].str());
  if (m[4].matched) arch = std::stoi(m[4].str());
  select::DeviceProfile profile;
  profile.arch = static_cast<std::uint16_t>(arch);
  profile.integrated = integrated;
  std::string driver_text = driver;
  if (driver_text.empty()) driver_text = std::string(package.metadata_value("nvrtc.version").value_or("13.0"));
  const std::optional<int> driver_version = select::parse_cuda_version(driver_text);
  if (!driver_version) return Error{"--driver '" + driver_text + "' is not a CUDA version such as 12.8"};
  profile.max_ptx_version = select::max_ptx_version_for_driver(*driver_version);
  return profile;
}

}  // namespace kiln::cli

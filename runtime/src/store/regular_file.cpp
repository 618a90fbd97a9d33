#include "store/regular_file.hpp"

#include "platform/text.hpp"

#include <cerrno>
#include <cstring>
#include <string>

namespace kiln::store {

Result<std::vector<std::byte>> read_regular_file(const std::filesystem::path& path, std::size_t max_size,
                                                 bool follow_link, platform::FileStatus* status) {
  const auto failure = [&path](const std::string& why) {
    return Error{"cannot read " + platform::utf8_of(path) + ": " + why};
  };
  const int fd = platform::open_regular_for_reading(path, follow_link);
  if (fd < 0) {
    if (errno == EINVAL) return failure("not a regular file");
    if (errno == ELOOP && !follow_link) return failure("a symbolic link");
    return failure(std::strerror(errno));
  }
  platform::FileStatus st;
  if (!platform::status_of(fd, st) || st.size > max_size) {
    const std::string why = st.size > max_size ? "larger than " + std::to_string(max_size) + " bytes" : std::strerror(errno);
    platform::close_file(fd);
    return failure(why);
  }
  std::vector<std::byte> bytes(static_cast<std::size_t>(st.size));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const long got = platform::read_some(fd, bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;   // an error, or a file cut short since it was opened: what is read fails its checks
    done += static_cast<std::size_t>(got);
  }
  platform::close_file(fd);
  bytes.resize(done);
  if (status) *status = st;
  return bytes;
}

}  // namespace kiln::store

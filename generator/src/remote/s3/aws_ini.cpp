#include "remote/s3/aws_ini.hpp"

#include "platform/files.hpp"
#include "platform/text.hpp"
#include "util/file_io.hpp"

#include <ini.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

namespace kiln::remote {

namespace {

// The text of a file, handed to inih a line at a time (its `ini_reader`), a line longer than inih's
// buffer in pieces: the first as it starts, each further one after a space, which inih takes as a
// continuation of the value above (INI_ALLOW_MULTILINE, on in Debian's build as by default).
struct AwsIniFeed {
  enum class Given { line, indented_line, piece };

  std::string_view text;
  std::size_t at = 0;
  std::string_view rest;                 // what is left of a long line
  Given given = Given::line;             // what inih holds now
  int line = 0;                          // the file's line that it came from
  std::vector<int> line_of_given{0};     // inih counts pieces as lines: the file's line of each
};

char* feed_aws_ini_line(char* buffer, int size, void* stream) {
  auto* feed = static_cast<AwsIniFeed*>(stream);
  const std::size_t room = static_cast<std::size_t>(size) - 1;   // the NUL aside
  std::string_view out;
  if (!feed->rest.empty()) {
    out = feed->rest.substr(0, room - 1);
    feed->rest.remove_prefix(out.size());
    buffer[0] = ' ';
    std::memcpy(buffer + 1, out.data(), out.size());
    buffer[out.size() + 1] = '\0';
    feed->given = AwsIniFeed::Given::piece;
    feed->line_of_given.push_back(feed->line);
    return buffer;
  }
  if (feed->at >= feed->text.size()) return nullptr;
  const std::size_t end = std::min(feed->text.find('\n', feed->at), feed->text.size());
  out = feed->text.substr(feed->at, end - feed->at);
  feed->at = end + 1;
  ++feed->line;
  feed->line_of_given.push_back(feed->line);
  feed->given = !out.empty() && (out[0] == ' ' || out[0] == '\t') ? AwsIniFeed::Given::indented_line
                                                                   : AwsIniFeed::Given::line;
  if (out.size() > room) {
    // The rest of a long comment is not handed on: as a continuation it would join the value above.
    const std::size_t first = out.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || !std::strchr(INI_START_COMMENT_PREFIXES, out[first]))
      feed->rest = out.substr(room);
    out = out.substr(0, room);
  }
  std::memcpy(buffer, out.data(), out.size());
  buffer[out.size()] = '\0';
  return buffer;
}

struct AwsIniReading {
  AwsIniFeed feed;
  IniSections sections;
  std::string last_section;
  std::string last_name;
};

int take_aws_ini_value(void* user, const char* section, const char* name, const char* value) {
  auto* reading = static_cast<AwsIniReading*>(user);
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
  std::string& held = reading->sections[section][lower];
  const bool continues = reading->last_section == section && reading->last_name == lower;
  if (reading->feed.given == AwsIniFeed::Given::piece && continues) {
    held += value;
  } else if (reading->feed.given == AwsIniFeed::Given::indented_line && continues) {
    held += "\n";   // configparser's multi-line value
    held += value;
  } else {
    held = value;
  }
  reading->last_section = section;
  reading->last_name = lower;
  return 1;
}

}  // namespace

Result<IniSections> parse_aws_file(std::string_view text, const std::string& named) {
  AwsIniReading reading;
  reading.feed.text = text;
  const int failed = ini_parse_stream(feed_aws_ini_line, &reading.feed, take_aws_ini_value, &reading);
  if (failed > 0) {
    const std::size_t given = static_cast<std::size_t>(failed);
    const int line = given < reading.feed.line_of_given.size() ? reading.feed.line_of_given[given] : failed;
    return Error{named + ": line " + std::to_string(line) +
                 " is not `name = value`, a [section] or a comment (an INI file, as the AWS CLI reads it)"};
  }
  if (failed < 0) return Error{named + ": cannot be read (out of memory)"};
  return std::move(reading.sections);
}

Result<std::optional<IniSections>> read_aws_file(const std::filesystem::path& path, const std::string& named) {
  platform::FileStatus status;
  if (!platform::status_of(path, status) && (errno == ENOENT || errno == ENOTDIR))
    return std::optional<IniSections>();
  Result<std::vector<std::byte>> bytes = read_regular_file(path, k_max_aws_file_size, /*follow_link=*/true);
  if (!bytes) {
    // read_regular_file names the path; the variable that named it is said first.
    const std::string via = named == platform::utf8_of(path) ? "" : named.substr(0, named.find('=')) + ": ";
    return Error{via + bytes.error().message};
  }
  Result<IniSections> sections =
      parse_aws_file(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), named);
  if (!sections) return sections.error();
  return std::optional<IniSections>(std::move(*sections));
}

}  // namespace kiln::remote

#include "cli/color.hpp"

#include "util/printable.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <iostream>

namespace kiln::cli {

namespace {

constexpr std::string_view k_bold = "\033[1m";
constexpr std::string_view k_reset = "\033[0m";

struct Severity {
  std::string_view word;    // as it follows the location: "error:"
  std::string_view color;
};
constexpr std::array<Severity, 5> k_severities = {{{"fatal error:", "\033[1;31m"},
                                                   {"catastrophic error:", "\033[1;31m"},
                                                   {"error:", "\033[1;31m"},
                                                   {"warning:", "\033[1;35m"},
                                                   {"note:", "\033[1;36m"}}};

// Buffers what a stream writes and sends it on a line at a time, escaped and perhaps coloured.
// std::cerr flushes after every `<<` (unitbuf), so a flush keeps a partial line back; it goes out,
// escaped, only at the end.
class LineBuffer final : public std::streambuf {
public:
  explicit LineBuffer(std::streambuf* out) : m_out(out) {}
  ~LineBuffer() override { finish(); }

  void color(bool enabled) { m_color = enabled; }

  void finish() {
    const std::string rest = printable(m_line, NewLines::escape);
    if (!rest.empty()) m_out->sputn(rest.data(), static_cast<std::streamsize>(rest.size()));
    m_line.clear();
    m_out->pubsync();
  }

protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    if (c == '\n') {
      const std::string escaped = printable(m_line, NewLines::escape);
      const std::string line = (m_color ? colorize_line(escaped) : escaped) + "\n";
      m_line.clear();
      m_out->sputn(line.data(), static_cast<std::streamsize>(line.size()));
    } else {
      m_line += static_cast<char>(c);
    }
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) overflow(traits_type::to_int_type(s[i]));
    return n;
  }
  int sync() override { return m_out->pubsync(); }

private:
  std::streambuf* m_out;
  std::string m_line;
  bool m_color = false;
};

}  // namespace

bool use_color(ColorMode mode, bool stderr_is_terminal, const char* no_color) {
  if (mode != ColorMode::automatic) return mode == ColorMode::always;
  return stderr_is_terminal && (no_color == nullptr || *no_color == '\0');
}

std::string colorize_line(std::string_view line) {
  // The severity is at the start of the line or right after a location ending in ": "; the first
  // one in the line counts ("a.cu:3: note: ... error: ..." is a note).
  const Severity* found = nullptr;
  std::size_t at = std::string_view::npos;
  for (const Severity& severity : k_severities) {
    std::size_t here = line.starts_with(severity.word) ? 0 : line.find(": " + std::string(severity.word));
    if (here == std::string_view::npos) continue;
    if (here != 0) here += 2;
    if (here < at) {
      at = here;
      found = &severity;
    }
  }
  if (found == nullptr) return std::string(line);
  std::string out;
  if (at != 0) out.append(k_bold).append(line.substr(0, at - 1)).append(k_reset).append(" ");
  out.append(found->color).append(found->word).append(k_reset);
  out.append(line.substr(at + found->word.size()));
  return out;
}

std::string printed_json(const nlohmann::json& value) {
  const std::string text = value.dump(2, ' ', /*ensure_ascii=*/true);
  std::string out;
  out.reserve(text.size());
  for (const char c : text) out += c == '\x7f' ? std::string("\\u007f") : std::string(1, c);   // only in strings
  return out;
}

OutputLines::OutputLines(std::ostream& stream) : m_stream(stream) {
  m_original = stream.rdbuf();
  m_filter = std::make_unique<LineBuffer>(m_original);
  stream.rdbuf(m_filter.get());
}

OutputLines::~OutputLines() {
  static_cast<LineBuffer*>(m_filter.get())->finish();
  m_stream.rdbuf(m_original);
}

void OutputLines::color(bool enabled) { static_cast<LineBuffer*>(m_filter.get())->color(enabled); }

}  // namespace kiln::cli

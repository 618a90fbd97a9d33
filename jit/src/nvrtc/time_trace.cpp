#include "nvrtc/time_trace.hpp"

#include "util/file_io.hpp"

#include <set>

namespace kiln::jit {

namespace {

constexpr std::string_view k_header_event = "Processing Header File";
constexpr std::string_view k_builtin_header = "__nv_nvrtc_builtin_header.h";
constexpr int k_max_depth = 256;   // NVRTC nests four deep; a deeper file is not a trace

// JSON read by a caller that walks the document it expects: each call consumes one value or fails,
// and object() hands each member's key to `member`, which consumes the member's value.
class Json {
public:
  explicit Json(std::string_view text) : m_text(text) {}

  char peek() {
    while (m_at < m_text.size() && (m_text[m_at] == ' ' || m_text[m_at] == '\t' || m_text[m_at] == '\n' || m_text[m_at] == '\r'))
      ++m_at;
    return m_at < m_text.size() ? m_text[m_at] : '\0';
  }
  bool at_end() { return peek() == '\0' && m_at == m_text.size(); }

  template <class Member>
  bool object(Member&& member) {
    if (!take('{')) return false;
    if (take('}')) return true;
    do {
      std::string key;
      if (peek() != '"' || !string(key) || !take(':') || !member(key)) return false;
    } while (take(','));
    return take('}');
  }

  template <class Element>
  bool array(Element&& element) {
    if (!take('[')) return false;
    if (take(']')) return true;
    do {
      if (!element()) return false;
    } while (take(','));
    return take(']');
  }

  bool string(std::string& out) {
    if (!take('"')) return false;
    out.clear();
    while (m_at < m_text.size()) {
      const char c = m_text[m_at++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;   // control characters come escaped
      if (c != '\\') {
        out += c;
        continue;
      }
      if (m_at >= m_text.size()) return false;
      switch (const char e = m_text[m_at++]) {
        case '"': case '\\': case '/': out += e; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': if (!code_point(out)) return false; break;
        default: return false;
      }
    }
    return false;
  }

  // Any value, read and dropped.
  bool skip(int depth) {
    if (depth > k_max_depth) return false;
    switch (peek()) {
      case '{': return object([&](const std::string&) { return skip(depth + 1); });
      case '[': return array([&] { return skip(depth + 1); });
      case '"': {
        std::string ignored;
        return string(ignored);
      }
      case 't': return word("true");
      case 'f': return word("false");
      case 'n': return word("null");
      default: return number();
    }
  }

private:
  bool take(char c) {
    if (peek() != c) return false;
    ++m_at;
    return true;
  }
  bool word(std::string_view w) {
    if (m_text.substr(m_at, w.size()) != w) return false;
    m_at += w.size();
    return true;
  }
  bool digits() {
    const std::size_t start = m_at;
    while (m_at < m_text.size() && m_text[m_at] >= '0' && m_text[m_at] <= '9') ++m_at;
    return m_at > start;
  }
  bool number() {
    if (m_at < m_text.size() && m_text[m_at] == '-') ++m_at;
    if (!digits()) return false;
    if (m_at < m_text.size() && m_text[m_at] == '.' && (++m_at, !digits())) return false;
    if (m_at < m_text.size() && (m_text[m_at] == 'e' || m_text[m_at] == 'E')) {
      ++m_at;
      if (m_at < m_text.size() && (m_text[m_at] == '+' || m_text[m_at] == '-')) ++m_at;
      if (!digits()) return false;
    }
    return true;
  }
  bool hex4(unsigned& value) {
    if (m_text.size() - m_at < 4) return false;
    value = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = m_text[m_at++];
      const int digit = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
      if (digit < 0) return false;
      value = value * 16 + static_cast<unsigned>(digit);
    }
    return true;
  }
  // After "\u": one code point (a surrogate pair takes two escapes), appended as UTF-8.
  bool code_point(std::string& out) {
    unsigned code = 0;
    if (!hex4(code) || (code >= 0xDC00 && code < 0xE000)) return false;
    if (code >= 0xD800 && code < 0xDC00) {
      unsigned low = 0;
      if (!word("\\u") || !hex4(low) || low < 0xDC00 || low >= 0xE000) return false;
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    // UTF-8: the lead byte says how many 6-bit continuation bytes follow.
    const int continuation = code < 0x80 ? 0 : code < 0x800 ? 1 : code < 0x10000 ? 2 : 3;
    static constexpr unsigned k_lead[] = {0x00, 0xC0, 0xE0, 0xF0};
    out += static_cast<char>(k_lead[continuation] | code >> (6 * continuation));
    for (int k = continuation - 1; k >= 0; --k) out += static_cast<char>(0x80 | (code >> (6 * k) & 0x3F));
    return true;
  }

  std::string_view m_text;
  std::size_t m_at = 0;
};

}  // namespace

std::string trace_output_path(const std::string& requested) { return requested + ".json"; }

Result<std::vector<std::string>> headers_in_trace_file(const std::string& requested) {
  Result<std::vector<std::byte>> bytes = read_regular_file(trace_output_path(requested), k_time_trace_limit, false);
  if (!bytes) return bytes.error();
  return headers_in_time_trace(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
}

Result<std::vector<std::string>> headers_in_time_trace(std::string_view trace) {
  Json json(trace);
  std::vector<std::string> headers;
  std::set<std::string, std::less<>> seen;
  // {"traceEvents": [{"args": {"detail": "<file>"}, ..., "name": "Processing Header File", ...}, ...], ...},
  // the members in any order; events of other kinds, and members of other types, are passed over.
  const auto event = [&] {
    if (json.peek() != '{') return json.skip(2);
    std::string name, detail;
    const bool read = json.object([&](const std::string& key) {
      if (key == "name" && json.peek() == '"') return json.string(name);
      if (key != "args" || json.peek() != '{') return json.skip(3);
      return json.object([&](const std::string& arg) {
        return arg == "detail" && json.peek() == '"' ? json.string(detail) : json.skip(4);
      });
    });
    if (read && name == k_header_event && !detail.empty() && detail != k_builtin_header && seen.insert(detail).second)
      headers.push_back(std::move(detail));
    return read;
  };
  bool has_events = false;
  const bool read = json.peek() == '{' && json.object([&](const std::string& key) {
    if (key != "traceEvents" || json.peek() != '[') return json.skip(1);
    has_events = true;
    return json.array(event);
  }) && json.at_end();
  if (!read || !has_events) return Error{"NVRTC's time trace is not the JSON Kiln expects"};
  return headers;
}

}  // namespace kiln::jit

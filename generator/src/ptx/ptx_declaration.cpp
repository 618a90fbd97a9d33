#include "ptx/ptx_declaration.hpp"

#include <charconv>
#include <limits>
#include <optional>
#include <string>
#include <utility>

namespace kiln::image {
namespace {

std::optional<std::uint64_t> to_number(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> multiply(std::uint64_t a, std::uint64_t b) {
  if (b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b) return std::nullopt;
  return a * b;
}

// Bytes of one element of a fundamental PTX type; 0 if `name` is not one.
std::uint64_t scalar_size(std::string_view name) {
  static constexpr std::pair<std::string_view, std::uint64_t> k_types[] = {
      {"b8", 1},  {"u8", 1},  {"s8", 1},  {"b16", 2},   {"u16", 2},   {"s16", 2},  {"f16", 2},
      {"bf16", 2}, {"b32", 4}, {"u32", 4}, {"s32", 4},  {"f32", 4},   {"f16x2", 4}, {"bf16x2", 4},
      {"tf32", 4}, {"b64", 8}, {"u64", 8}, {"s64", 8},  {"f64", 8},   {"b128", 16}, {"pred", 1}};
  for (const auto& [type, size] : k_types)
    if (type == name) return size;
  return 0;
}

bool is_state_space(std::string_view name) {
  return name == "param" || name == "global" || name == "const" || name == "shared" || name == "local" ||
         name == "reg" || name == "tex";
}

class DeclarationParser {
public:
  DeclarationParser(PtxLexer& lexer, PtxDeclarationMode mode) : m_lexer(lexer), m_mode(mode) {}
  Result<PtxDeclaration> run(const PtxToken& first);

private:
  PtxToken next_token(int line);
  Status directive(const PtxToken& token);
  Status attribute(const PtxToken& token);
  Status dimension(const PtxToken& open);
  Status initializer(const PtxToken& equals, PtxToken& stop);
  Status finish_name(const PtxToken& at);

  PtxLexer& m_lexer;
  PtxDeclarationMode m_mode;
  PtxDeclaration m_decl;
  std::uint64_t m_element = 0, m_vector = 1;
  std::optional<std::uint64_t> m_alignment;
  bool m_pointer = false;   // after .ptr, a state space and .align describe the pointee
  // The declarator being read: `name[dims] = initializer`.
  PtxDeclarator m_name;
  std::vector<std::optional<std::uint64_t>> m_dims;
  struct Initializer {
    std::uint64_t leaves = 0;   // scalar elements at any depth
    std::uint64_t rows = 0;     // brace groups directly inside the outer braces
  };
  std::optional<Initializer> m_initializer;
  Error m_error;                          // set by next_token when it returns an end or error token
};

// Inside a declaration, the end of the text is an error too.
PtxToken DeclarationParser::next_token(int line) {
  PtxToken t = m_lexer.next();
  if (t.kind == PtxTokenKind::error) m_error = ptx_error(t.line, t.text);
  if (t.kind == PtxTokenKind::end) m_error = ptx_error(line, "declaration not terminated");
  return t;
}

Result<PtxDeclaration> DeclarationParser::run(const PtxToken& first) {
  if (Status s = directive(first); !s) return s.error();
  for (;;) {
    const PtxToken t = next_token(first.line);
    if (t.kind == PtxTokenKind::error || t.kind == PtxTokenKind::end) return m_error;
    Status s = Ok{};
    PtxToken stop = t;
    if (t.kind == PtxTokenKind::directive) {
      if (!m_name.name.empty()) return ptx_error(t.line, "unexpected '" + std::string(t.text) + "' after the name");
      s = directive(t);
    } else if (t.kind == PtxTokenKind::identifier && m_name.name.empty()) {
      m_name.name = t.text;
      m_name.line = t.line;
    } else if (t.is('[')) {
      s = dimension(t);
    } else if (t.is('=') && m_mode == PtxDeclarationMode::variable && !m_name.name.empty() && !m_initializer) {
      s = initializer(t, stop);
    } else if (!t.is(',') && !t.is(m_mode == PtxDeclarationMode::parameter ? ')' : ';')) {
      return ptx_error(t.line, "unexpected '" + std::string(t.text) + "' in a declaration");
    }
    if (!s) return s.error();
    if (stop.is(',') || stop.is(')') || stop.is(';')) {
      if (Status f = finish_name(stop); !f) return f.error();
      if (m_mode == PtxDeclarationMode::parameter || stop.is(';')) {
        m_decl.terminator = stop;
        break;
      }
    }
  }
  m_decl.alignment = m_alignment.value_or(m_element * m_vector);
  return std::move(m_decl);
}

Status DeclarationParser::directive(const PtxToken& token) {
  std::string_view rest = token.text.substr(1);  // ".ptr.global.align" -> parts ptr, global, align
  while (!rest.empty()) {
    const std::size_t dot = rest.find('.');
    const std::string_view part = rest.substr(0, dot);
    rest = dot == std::string_view::npos ? std::string_view{} : rest.substr(dot + 1);
    const bool last = rest.empty();
    if (is_state_space(part)) {
      if (m_pointer) continue;  // the pointee's state space
      if (!m_decl.space.empty()) return ptx_error(token.line, "second state space '." + std::string(part) + "'");
      m_decl.space = part;
    } else if (part == "align" && last) {
      const PtxToken value = next_token(token.line);
      const std::optional<std::uint64_t> n = value.kind == PtxTokenKind::number ? to_number(value.text) : std::nullopt;
      if (!n || *n == 0 || (*n & (*n - 1)) != 0) return ptx_error(value.line, ".align needs a power of two");
      if (!m_pointer) m_alignment = *n;
    } else if (part == "attribute" && last) {
      if (Status s = attribute(token); !s) return s;
    } else if (part == "ptr") {
      m_pointer = true;
    } else if (part == "v2" || part == "v4" || part == "v8") {
      m_vector = static_cast<std::uint64_t>(part[1] - '0');
    } else if (part == "texref" || part == "samplerref" || part == "surfref") {
      m_decl.opaque = true;
      m_element = 8;
    } else if (const std::uint64_t size = scalar_size(part); size != 0 && m_element == 0) {
      m_element = size;
    } else {
      return ptx_error(token.line, "unexpected '." + std::string(part) + "' in a declaration");
    }
  }
  return Ok{};
}

// .attribute( .managed ) and friends; only .managed matters here.
Status DeclarationParser::attribute(const PtxToken& token) {
  if (!next_token(token.line).is('(')) return ptx_error(token.line, ".attribute needs '('");
  for (int depth = 1; depth > 0;) {
    const PtxToken t = next_token(token.line);
    if (t.kind == PtxTokenKind::error || t.kind == PtxTokenKind::end) return m_error;
    depth += t.is('(') ? 1 : t.is(')') ? -1 : 0;
    if (t.kind == PtxTokenKind::directive && t.text == ".managed") m_decl.managed = true;
  }
  return Ok{};
}

Status DeclarationParser::dimension(const PtxToken& open) {
  PtxToken t = next_token(open.line);
  std::optional<std::uint64_t> size;
  if (t.kind == PtxTokenKind::number) {
    size = to_number(t.text);
    if (!size) return ptx_error(t.line, "bad array size '" + std::string(t.text) + "'");
    t = next_token(open.line);
  }
  if (!t.is(']')) return ptx_error(t.line, "expected ']'");
  if (m_name.name.empty()) {
    // .const[2]: a constant bank (pre-Fermi PTX), not an array dimension.
    if (m_decl.space == "const" && size && m_element == 0) return Ok{};
    return ptx_error(open.line, "'[' before the name");
  }
  if (!size && !m_dims.empty()) return ptx_error(open.line, "only the first array dimension may be left out");
  m_dims.push_back(size);
  return Ok{};
}

// Counts the elements of `= {1, 2, 3}` (3 leaves), `= {{1}, {2, 3}}` (2 rows, 3 leaves) or
// `= generic(x)` (1 leaf): an array declared with [] takes its first dimension from them. Leaves
// `stop` at the `,` or `;` that ends the declarator.
Status DeclarationParser::initializer(const PtxToken& equals, PtxToken& stop) {
  int braces = 0, parens = 0;
  bool in_element = false;
  Initializer counts;
  for (;;) {
    const PtxToken t = next_token(equals.line);
    if (t.kind == PtxTokenKind::error || t.kind == PtxTokenKind::end) return m_error;
    if (braces == 0 && parens == 0 && (t.is(',') || t.is(';'))) {
      stop = t;
      break;
    }
    if (parens == 0 && (t.is('{') || t.is('}') || t.is(','))) {
      if (t.is('{') && ++braces == 2) ++counts.rows;
      if (t.is('}') && --braces < 0) return ptx_error(t.line, "unbalanced '}' in an initializer");
      in_element = false;
      continue;
    }
    parens += t.is('(') ? 1 : t.is(')') ? -1 : 0;
    if (parens < 0) return ptx_error(t.line, "unbalanced ')' in an initializer");
    if (!in_element) ++counts.leaves;
    in_element = true;
  }
  m_initializer = counts;
  return Ok{};
}

Status DeclarationParser::finish_name(const PtxToken& at) {
  if (m_name.name.empty()) return ptx_error(at.line, "declaration without a name");
  if (m_element == 0) return ptx_error(m_name.line, "'" + std::string(m_name.name) + "' has no type");
  std::optional<std::uint64_t> size = multiply(m_element, m_vector);
  std::uint64_t inner = 1;  // elements per index of the first dimension
  for (std::size_t i = 1; i < m_dims.size() && size; ++i) {
    inner = multiply(inner, *m_dims[i]).value_or(0);
    size = multiply(*size, *m_dims[i]);
  }
  if (!m_dims.empty() && size) {
    std::optional<std::uint64_t> outer = m_dims.front();
    if (!outer && !m_initializer) return ptx_error(m_name.line, "array '" + std::string(m_name.name) + "' has no size");
    // {{1}, {2, 3}} has a row per inner brace group; a flat list fills rows of `inner` in turn.
    if (!outer && m_dims.size() > 1 && m_initializer->rows > 0) outer = m_initializer->rows;
    if (!outer) outer = inner == 0 ? 0 : (m_initializer->leaves + inner - 1) / inner;
    size = multiply(*size, *outer);
  }
  if (!size) return ptx_error(m_name.line, "'" + std::string(m_name.name) + "' is too large");
  m_name.size = *size;
  m_decl.names.push_back(m_name);
  m_name = PtxDeclarator{};
  m_dims.clear();
  m_initializer.reset();
  return Ok{};
}

}  // namespace

Error ptx_error(int line, std::string_view message) { return Error{std::to_string(line) + ": " + std::string(message)}; }

Result<PtxDeclaration> parse_declaration(PtxLexer& lexer, const PtxToken& first, PtxDeclarationMode mode) {
  return DeclarationParser(lexer, mode).run(first);
}

}  // namespace kiln::image

// Walks a PTX module at brace depth 0: .version, .target, entry headers and variable definitions.
// Function and entry bodies are skipped by counting braces; nothing inside them is interpreted.
#include "ptx/ptx_reader.hpp"

#include "ptx/ptx_declaration.hpp"
#include "ptx/ptx_lexer.hpp"

#include <limits>
#include <optional>
#include <utility>

namespace kiln::image {
namespace {

class ModuleReader {
public:
  explicit ModuleReader(std::string_view text) : m_lexer(text) {}
  Result<PtxInfo> run();

private:
  PtxToken next();
  Status entry(const PtxToken& at);
  Status variable(const PtxToken& space);
  void end_statement() { m_extern = m_visible = m_weak = m_in_function = false; }

  PtxLexer m_lexer;
  std::optional<PtxToken> m_pending;  // a token read ahead and handed back
  PtxInfo m_info;
  // What the current module-scope statement said before its state space or .entry.
  bool m_extern = false, m_visible = false, m_weak = false, m_in_function = false;
};

PtxToken ModuleReader::next() {
  if (m_pending) return std::exchange(m_pending, std::nullopt).value();
  return m_lexer.next();
}

Result<PtxInfo> ModuleReader::run() {
  int depth = 0, opened_at = 0;
  for (;;) {
    const PtxToken t = next();
    if (t.kind == PtxTokenKind::error) return ptx_error(t.line, t.text);
    if (t.kind == PtxTokenKind::end) break;
    if (t.is('{')) {
      if (depth++ == 0) opened_at = t.line;
    } else if (t.is('}')) {
      if (depth == 0) return ptx_error(t.line, "'}' without '{'");
      if (--depth == 0) end_statement();
    } else if (depth > 0) {
      continue;  // inside a body
    } else if (t.is(';')) {
      end_statement();
    } else if (t.kind != PtxTokenKind::directive) {
      continue;
    } else if (t.text == ".version" || t.text == ".target") {
      const PtxToken value = next();
      const PtxTokenKind expected = t.text == ".version" ? PtxTokenKind::number : PtxTokenKind::identifier;
      if (value.kind != expected) return ptx_error(t.line, std::string(t.text) + " without a value");
      std::string& field = t.text == ".version" ? m_info.version : m_info.target;
      if (!field.empty()) return ptx_error(t.line, "second " + std::string(t.text));
      field = value.text;  // ".target sm_90a, debug": the rest are options, skipped as tokens
    } else if (t.text == ".extern") {
      m_extern = true;
    } else if (t.text == ".visible") {
      m_visible = true;
    } else if (t.text == ".weak" || t.text == ".common") {
      m_weak = true;
    } else if (t.text == ".func") {
      m_in_function = true;  // its parameter lists are not variables
    } else if (t.text == ".entry") {
      if (Status s = entry(t); !s) return s.error();
    } else if ((t.text == ".global" || t.text == ".const") && !m_in_function) {
      if (Status s = variable(t); !s) return s.error();
    }
  }
  if (depth > 0) return ptx_error(opened_at, "'{' never closed");
  if (m_info.version.empty()) return ptx_error(1, "no .version directive");
  if (m_info.target.empty()) return ptx_error(1, "no .target directive");
  return std::move(m_info);
}

// `.entry name ( .param ..., .param ... )`; the list may be empty or absent. Offsets follow the
// parameter ABI: each parameter at the next multiple of its alignment.
Status ModuleReader::entry(const PtxToken& at) {
  const PtxToken name = next();
  if (name.kind != PtxTokenKind::identifier) return ptx_error(at.line, ".entry without a name");
  PtxEntry e;
  e.name = name.text;
  e.is_weak = m_weak;
  PtxToken t = next();
  if (!t.is('(')) {
    m_pending = t;  // no parameter list: the token belongs to what follows
  } else {
    std::uint64_t end = 0;
    for (t = next(); !(e.params.empty() && t.is(')')); t = next()) {
      if (t.kind != PtxTokenKind::directive || !t.text.starts_with(".param"))
        return ptx_error(t.line, "expected a .param in the parameters of '" + e.name + "'");
      Result<PtxDeclaration> param = parse_declaration(m_lexer, t, PtxDeclarationMode::parameter);
      if (!param) return param.error();
      const std::uint64_t align = param->alignment;
      const std::uint64_t size = param->names.front().size;
      // All three stay below 2^32, so the rounding cannot wrap.
      constexpr std::uint64_t k_limit = std::numeric_limits<std::uint32_t>::max();
      const std::uint64_t offset = align > k_limit ? k_limit + 1 : (end + align - 1) / align * align;
      if (offset > k_limit || size > k_limit - offset)
        return ptx_error(t.line, "parameters of '" + e.name + "' are too large");
      e.params.push_back(format::ParamRecord{static_cast<std::uint32_t>(offset), static_cast<std::uint32_t>(size)});
      end = offset + size;
      if (param->terminator.is(')')) break;
    }
  }
  m_info.entries.push_back(std::move(e));
  end_statement();
  return Ok{};
}

Status ModuleReader::variable(const PtxToken& space) {
  Result<PtxDeclaration> decl = parse_declaration(m_lexer, space, PtxDeclarationMode::variable);
  if (!decl) return decl.error();
  if (!m_extern && !decl->opaque) {
    for (const PtxDeclarator& d : decl->names) {
      PtxVariable v;
      v.name = d.name;
      v.kind = decl->space == "const" ? format::VariableKind::constant
               : decl->managed        ? format::VariableKind::managed
                                      : format::VariableKind::device;
      v.size = d.size;
      v.visible = m_visible || m_weak;
      m_info.variables.push_back(v.name);
      m_info.variable_declarations.push_back(std::move(v));
    }
  }
  end_statement();
  return Ok{};
}

}  // namespace

Result<PtxInfo> read_ptx(std::string_view ptx, const std::string& label) {
  Result<PtxInfo> info = ModuleReader(ptx).run();
  if (!info) return Error{label + ":" + info.error().message};
  return info;
}

}  // namespace kiln::image

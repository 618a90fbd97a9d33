#include "util/diagnostic.hpp"

namespace kiln {

std::string position_text(const Location& where) {
  std::string out = where.file;
  if (where.line > 0) {
    out += ':' + std::to_string(where.line);
    if (where.column > 0) out += ':' + std::to_string(where.column);
  }
  return out;
}

std::string diagnostic(const Location& where, std::string_view severity, std::string_view message) {
  std::string out = where.file.empty() ? std::string("kiln") : position_text(where);
  out += ": ";
  out += severity;
  out += ": ";
  out += message;
  return out;
}

std::string diagnostic(const Error& error, std::string_view severity) {
  std::string out = diagnostic(error.where, severity, error.message);
  if (!error.log.empty()) {
    out += '\n';
    out += error.log;
  }
  return out;
}

}  // namespace kiln

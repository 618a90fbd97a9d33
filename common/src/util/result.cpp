#include "util/result.hpp"

namespace kiln {

std::string error_text(const Error& error) {
  std::string out;
  if (!error.where.file.empty()) {
    out = error.where.file;
    if (error.where.line > 0) {
      out += ':' + std::to_string(error.where.line);
      if (error.where.column > 0) out += ':' + std::to_string(error.where.column);
    }
    out += ": ";
  }
  out += error.message;
  if (!error.log.empty()) {
    out += '\n';
    out += error.log;
  }
  return out;
}

}  // namespace kiln

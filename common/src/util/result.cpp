#include "util/result.hpp"

namespace kiln::failure {

Error::Error() = default;
Error::Error(std::string message_) : message(std::move(message_)) {}
Error::Error(std::string message_, Location where_, kiln_status status_, std::string log_)
    : message(std::move(message_)), where(std::move(where_)), status(status_), log(std::move(log_)) {}
Error::Error(const Error& other) = default;
Error::Error(Error&& other) noexcept = default;
Error& Error::operator=(const Error& other) = default;
Error& Error::operator=(Error&& other) noexcept = default;
Error::~Error() = default;

Result<Ok>::Result(Error&& error) : m_error(std::make_unique<Error>(std::move(error))) {}
Result<Ok>::Result(const Error& error) : m_error(std::make_unique<Error>(error)) {}
Result<Ok>::Result(const Result& other) : m_error(other.m_error ? std::make_unique<Error>(*other.m_error) : nullptr) {}

Result<Ok>& Result<Ok>::operator=(const Result& other) {
  if (this != &other) m_error = other.m_error ? std::make_unique<Error>(*other.m_error) : nullptr;
  return *this;
}

Error fail(kiln_status status, std::string message) {
  Error error(std::move(message));
  error.status = status;
  return error;
}

Error fail(kiln_status status, std::string message, Location where) {
  return Error(std::move(message), std::move(where), status);
}

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

}  // namespace kiln::failure

// kiln::Error, the exception every failure of the C++ interface throws. Included by kiln.hpp.
#ifndef KILN_ERROR_HPP
#define KILN_ERROR_HPP

#include "kiln/kiln.h"

#include <stdexcept>
#include <string>

namespace kiln {

// A failed Kiln call: status() says what kind of failure, what() says exactly what failed.
class Error : public std::runtime_error {
public:
  Error(kiln_status status, const std::string& message)
      : std::runtime_error(message.empty() ? std::string(kiln_status_string(status)) : message), m_status(status) {}
  kiln_status status() const noexcept { return m_status; }

private:
  kiln_status m_status;
};

// The headers throw it as kiln::Error, qualified: Kiln's own tests see its internal kiln::failure::Error
// too, through a using-directive, and there a plain `Error` would name both.
namespace detail {
// Turns a status into an exception carrying the calling thread's last error message.
inline void check(kiln_status status) {
  if (status != KILN_STATUS_SUCCESS) throw kiln::Error(status, kiln_last_error());
}
}  // namespace detail

}  // namespace kiln

#endif  // KILN_ERROR_HPP

// Error and Result<T>: Kiln's one way to carry a failure, in the generator, the loader, the compile
// library and the code they share. A failure is a sentence, where it happened (file, line, column,
// kernel, target: whatever is known) and the C ABI status it is reported as where it crosses the
// C ABI. Exceptions are kept for programming errors and caught once, at the top of the CLI, and never
// cross the C ABI.
#pragma once

#include "kiln/kiln.h"   // kiln_status: the one list of failure kinds, the C ABI's

#include <string>
#include <utility>
#include <variant>

namespace kiln {

// Where a failure is. Every field is optional: "" or 0 is "not known".
struct Location {
  std::string file;     // as the user wrote or sees it: "kiln.toml", "src/reduce.cu", a package path
  int line = 0;         // 1-based
  int column = 0;       // 1-based; meaningful only with a line
  std::string kernel;   // the kernel's name as asked for: "block_sum<float, 256>"
  std::string target;   // "sm_90", "compute_90"

  bool empty() const { return file.empty() && line == 0 && kernel.empty() && target.empty(); }
};

struct Error {
  Error() = default;
  explicit Error(std::string message_) : message(std::move(message_)) {}
  Error(std::string message_, Location where_, kiln_status status_ = KILN_STATUS_INTERNAL_ERROR, std::string log_ = {})
      : message(std::move(message_)), where(std::move(where_)), status(status_), log(std::move(log_)) {}

  // One sentence, without the file position `where` holds. It names the kernel and target where
  // it matters: `where.kernel` and `where.target` are for whoever acts on the failure, not printed
  // on their own.
  std::string message;
  Location where;
  // What the C ABI reports this failure as. A failure that reaches the C ABI without one chosen is
  // a bug in Kiln, hence the default.
  kiln_status status = KILN_STATUS_INTERNAL_ERROR;
  // A tool's own output behind the failure (a compiler's diagnostics), printed as it is after the
  // message; "" when there is none.
  std::string log;
};

// The error's text as one line (then its log): "file:line:column: message", or the message alone
// when no file is known. Compilers' "error:" word is the printer's to add (util/diagnostic.hpp).
std::string error_text(const Error& error);

template <typename T>
class [[nodiscard]] Result {
public:
  Result(T value) : m_state(std::move(value)) {}
  Result(Error error) : m_state(std::move(error)) {}

  bool ok() const { return m_state.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(m_state); }
  const T& value() const& { return std::get<0>(m_state); }
  T&& value() && { return std::get<0>(std::move(m_state)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const Error& error() const& { return std::get<1>(m_state); }
  Error&& error() && { return std::get<1>(std::move(m_state)); }

private:
  std::variant<T, Error> m_state;
};

struct Ok {};
using Status = Result<Ok>;

// A failure reported as `status` where it crosses the C ABI.
inline Error fail(kiln_status status, std::string message, Location where = {}) {
  return Error(std::move(message), std::move(where), status);
}

}  // namespace kiln

// Propagates a failure: `KILN_TRY(step());` returns step's Error unless it succeeded. Works in any
// function that returns a Result.
#define KILN_TRY(expr)                                           \
  do {                                                           \
    auto kiln_try_result_ = (expr);                              \
    if (!kiln_try_result_.ok()) return std::move(kiln_try_result_).error(); \
  } while (false)

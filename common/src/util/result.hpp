// Error and Result<T>: Kiln's one way to carry a failure, in the generator, the loader, the compile
// library and the code they share. A failure is a sentence, where it happened (file, line, column,
// kernel, target: whatever is known) and the C ABI status it is reported as where it crosses the
// C ABI. Exceptions are kept for programming errors and caught once, at the top of the CLI, and never
// cross the C ABI.
#pragma once

#include "kiln/kiln.h"   // kiln_status: the one list of failure kinds, the C ABI's

#include <memory>
#include <string>
#include <utility>
#include <variant>

namespace kiln {

// The loader's public C++ header (kiln/error.hpp) has its own kiln::Error, the exception a program
// catches. These types live in a namespace of their own so that the two never meet at link time (a
// program that links Kiln::runtime_static and includes kiln.hpp holds both), and the
// using-directive after it lets Kiln's code spell this one kiln::Error. Where both are seen (the
// runtime's tests), `kiln::Error` is the public one and this one is `kiln::failure::Error`.
namespace failure {

// Where a failure is. Every field is optional: "" or 0 is "not known".
struct Location {
  std::string file{};   // as the user wrote or sees it: "kiln.toml", "src/reduce.cu", a package path
  int line = 0;         // 1-based
  int column = 0;       // 1-based; meaningful only with a line
  std::string kernel{}; // the kernel's name as asked for: "block_sum<float, 256>"
  std::string target{}; // "sm_90", "compute_90"

  bool empty() const { return file.empty() && line == 0 && kernel.empty() && target.empty(); }
};

// Its members are made and copied out of line (result.cpp): an error is built on a cold path, and
// the loader, which returns a Status from nearly every function, stays small (its stripped size is
// measured).
struct Error {
  Error();
  explicit Error(std::string message_);
  Error(std::string message_, Location where_, kiln_status status_ = KILN_STATUS_INTERNAL_ERROR, std::string log_ = {});
  Error(const Error& other);
  Error(Error&& other) noexcept;
  Error& operator=(const Error& other);
  Error& operator=(Error&& other) noexcept;
  ~Error();

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

// The value of a Result that has none to give: Status is Result<Ok>.
struct Ok {};

template <typename T>
class Result;
template <>
class Result<Ok>;

template <typename T>
class [[nodiscard]] Result {
public:
  Result(T value) : m_state(std::move(value)) {}
  Result(Error error) : m_state(std::move(error)) {}
  // A failed Status's error, as KILN_TRY passes it on.
  Result(Result<Ok>&& failed);

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

// Status: a Result without a value, held as a pointer that is null on success, so that the many
// functions returning one pass a word, not a variant of an Error. Made without a value it is a
// success, as std::expected<void, E>'s is: `return {};`.
template <>
class [[nodiscard]] Result<Ok> {
public:
  Result() = default;
  Result(Ok) {}
  Result(Error&& error);
  Result(const Error& error);
  Result(const Result& other);
  Result(Result&& other) noexcept = default;
  Result& operator=(const Result& other);
  Result& operator=(Result&& other) noexcept = default;
  ~Result() = default;

  bool ok() const { return m_error == nullptr; }
  explicit operator bool() const { return ok(); }
  Ok value() const { return {}; }
  const Error& error() const& { return *m_error; }
  Error&& error() && { return std::move(*m_error); }

private:
  std::unique_ptr<Error> m_error;
};

using Status = Result<Ok>;

template <typename T>
Result<T>::Result(Result<Ok>&& failed) : m_state(std::in_place_index<1>, std::move(failed).error()) {}

// What KILN_TRY returns for a failed result: a Status as it is, so that passing one on moves a
// pointer (the loader returns Statuses through many levels, and its size is held), any other
// Result its Error.
inline Result<Ok>&& failure_of(Result<Ok>& failed) { return std::move(failed); }
template <typename T>
Error&& failure_of(Result<T>& failed) {
  return std::move(failed).error();
}

// A failure reported as `status` where it crosses the C ABI. Out of line, like Error's members.
// Cold: GCC lays out the code that builds a failure's message away from the paths that succeed, so
// a first open or first launch touches fewer lines of code (most of the loader's code is messages).
[[gnu::cold]] Error fail(kiln_status status, std::string message);
[[gnu::cold]] Error fail(kiln_status status, std::string message, Location where);

}  // namespace failure

using namespace failure;

}  // namespace kiln

// Propagates a failure: `KILN_TRY(step());` returns step's Error unless it succeeded. Works in any
// function that returns a Result.
#define KILN_TRY(expr)                                                               \
  do {                                                                               \
    auto kiln_try_result_ = (expr);                                                  \
    if (!kiln_try_result_.ok()) return ::kiln::failure::failure_of(kiln_try_result_); \
  } while (false)

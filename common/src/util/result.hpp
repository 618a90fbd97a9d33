// Result<T>: a value or an Error, the generator's way to carry failures between stages. Exceptions
// are kept for programming errors and caught once, at the top of the CLI.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace kiln {

struct Error {
  std::string message;   // complete and user-facing: "kiln.toml:12: unknown key 'tragets'"
};

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
  const Error& error() const { return std::get<1>(m_state); }

private:
  std::variant<T, Error> m_state;
};

struct Ok {};
using Status = Result<Ok>;

}  // namespace kiln

// Helpers for the driver tests: environment variables scoped to a test, and substring checks.
#pragma once

#include "test_process.hpp"
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace kiln::test {

// Sets or unsets an environment variable for one test and puts the old value back afterwards, so that
// tests run in one process (the binary run by hand) do not steer each other.
class ScopedEnv {
public:
  ScopedEnv(const char* name, const char* value) : m_name(name) {
    if (const char* old = std::getenv(name)) m_old = old;
    if (value != nullptr) {
      kiln::test::set_variable(name, value);
    } else {
      kiln::test::unset_variable(name);
    }
  }
  ~ScopedEnv() {
    if (m_old) {
      kiln::test::set_variable(m_name.c_str(), m_old->c_str());
    } else {
      kiln::test::unset_variable(m_name.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
  std::string m_name;
  std::optional<std::string> m_old;
};

inline ::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

}  // namespace kiln::test

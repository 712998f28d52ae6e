// Shared by the unit tests: a call that must fail with a usage Error naming something.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "base/errors.hpp"

namespace hetprobe {

// Runs `call`, which must throw a usage Error whose message contains `needle`.
inline void expect_usage_error(const std::function<void()>& call, const std::string& needle) {
  try {
    call();
    ADD_FAILURE() << "no exception, expected one naming \"" << needle << "\"";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace hetprobe

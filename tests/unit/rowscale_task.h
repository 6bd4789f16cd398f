// A small task the tests build candidates and prompts for: a row scaled by a weight and divided by
// the row's sum (a reduction, a broadcast and a division), as a suite task with its checked program.
#pragma once
#include <memory>
#include <string>

#include "ir/check.h"
#include "suite/suite.h"

namespace ekb::test {

inline const char* kRowscaleText = R"(kernel rowscale
  category normalization
  domain general
  dim R = 8, C = 32
  in X : f32[R, C]
  in W : f32[C] ~ positive(0.5, 2)
  out Y : f32[R, C]
  S[r] = sum(c) X[r, c]
  Y[r, c] = X[r, c] * W[c] / S[r]
)";

inline Task rowscale_task() {
  Task t;
  t.name = "rowscale";
  t.text = kRowscaleText;
  t.program = load_program(std::make_shared<SourceFile>("rowscale.ekb", kRowscaleText));
  return t;
}

}  // namespace ekb::test

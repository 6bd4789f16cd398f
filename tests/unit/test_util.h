// Helpers shared by the unit tests: check a program from text, expect an error, run the reference.
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "harness/inputs.h"
#include "interp/interpreter.h"
#include "ir/check.h"
#include "ir/parser.h"
#include "ir/printer.h"

namespace ekb::test {

struct Checked {
  std::shared_ptr<Program> program;
  DiagnosticList diags;
  std::string rendered() const { return diags.render_all(); }
};

inline Checked check_text(const std::string& text, const std::string& name = "t.ekb") {
  Checked c;
  auto src = std::make_shared<SourceFile>(name, text);
  auto module = std::make_shared<Module>(parse_module(src, c.diags));
  if (!c.diags.has_errors()) c.program = check_module(module, c.diags);
  return c;
}

// The program must check without errors.
inline std::shared_ptr<Program> valid(const std::string& text) {
  Checked c = check_text(text);
  EXPECT_TRUE(c.program) << c.rendered();
  return c.program;
}

// Checking must fail with an error whose rendering contains `needle`; returns the rendering.
inline std::string expect_error(const std::string& text, const std::string& needle) {
  Checked c = check_text(text);
  EXPECT_FALSE(c.program) << "expected an error containing: " << needle;
  std::string r = c.rendered();
  EXPECT_NE(r.find(needle), std::string::npos) << "missing `" << needle << "` in:\n" << r;
  // Every error says how to fix it, and points at a place in the file.
  for (const auto& d : c.diags.items()) {
    if (d.severity != Severity::error) continue;
    EXPECT_FALSE(d.fix.empty()) << "an error without a fix:\n" << render(d);
    EXPECT_TRUE(d.loc.valid()) << "an error without a location:\n" << render(d);
  }
  return r;
}

// A minimal kernel around one stage: `decls` are extra lines, `body` the stage line(s).
inline std::string kernel(const std::string& lines) { return "kernel t\n" + lines; }

// A depthwise 3x3 convolution (NHWC, zero padding through a padded copy Xp, bias and ReLU6), the
// shape of the suite's dwconv tasks.
inline std::string depthwise3x3_text(int h, int w, int c) {
  return "kernel dw\n  category conv\n  domain vision\n  dim H = " + std::to_string(h) + ", W = " + std::to_string(w) +
         ", C = " + std::to_string(c) + R"(
  in X : f32[H, W, C]
  in Wt : f32[3, 3, C]
  in B : f32[C]
  out Y : f32[H, W, C]
  Xp[h < H + 2, w < W + 2, c] = select(h >= 1 && h <= H && w >= 1 && w <= W, X[h - 1, w - 1, c], 0.0)
  S[oh < H, ow < W, c] = sum(kh < 3, kw < 3) Xp[oh + kh, ow + kw, c] * Wt[kh, kw, c]
  Y[oh, ow, c] = clamp(S[oh, ow, c] + B[c], 0.0, 6.0)
)";
}

inline std::vector<TensorData> run(const Program& p, uint64_t seed = 1) { return interpret(p, generate_inputs(p, seed)); }

}  // namespace ekb::test

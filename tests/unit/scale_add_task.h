// The small task the harness's attempt tests time candidates on (evaluate_test, warm_timing_test,
// gpu_evaluate_test): Y = X * 2 + 1 over 8192 floats, its default-schedule C baseline, and a C
// candidate from the body of its entry point (x, y and n in scope).
#pragma once
#include <memory>
#include <string>

#include "codegen/c_printer.h"
#include "codegen/dialect.h"
#include "ir/check.h"
#include "lower/schedule_choice.h"
#include "util/source.h"

namespace ekb::test {

inline const char* kScaleAddTask = R"(kernel scale_add
  dim N = 8192
  in X : f32[N]
  out Y : f32[N]
  Y[i] = X[i] * 2.0 + 1.0
)";

inline std::shared_ptr<Program> scale_add_program() {
  static std::shared_ptr<Program> p = load_program(std::make_shared<SourceFile>("scale_add.ekb", kScaleAddTask));
  return p;
}

inline std::string scale_add_baseline() {
  const Program& p = *scale_add_program();
  Target t = default_target(Backend::cpu);
  return codegen::print_c(lower_with(p, t, choose_schedule(p, t, "default")), codegen::c_dialect());
}

inline std::string scale_add_kernel(const std::string& body, const std::string& includes = "") {
  return includes + "\n#include <stdint.h>\nvoid ekb_entry(void* const* args, int32_t num_threads) {\n"
                    "  float* x = (float*)args[0]; float* y = (float*)args[1]; const int n = 8192; (void)num_threads;\n" +
         body + "\n}\n";
}

// A correct body.
inline const char* kScaleAddCorrect = "  for (int i = 0; i < n; ++i) y[i] = x[i] * 2.0f + 1.0f;";

}  // namespace ekb::test

// Comparing a kernel's outputs with the float64 reference, in one place (docs/metrics.md). The rule:
//   floats: error_i = |got_i - ref_i| / (|ref_i| + rms(ref)), and the output passes when
//           max error <= tolerance(dtype) * max(1, sqrt(T / 1024)), with tolerance(dtype) f64 1e-9,
//           f32 1e-4, f16 1e-2, bf16 3e-2, and T the number of terms the longest chain of stages
//           behind the output adds up (a sum over K of values that are sums over L: K*L; through an
//           activation or any other non-sum stage the terms add; a recurrence's step counts once per
//           step; max and min count 1, they round nothing; rounding errors grow like T's square root).
//           A NaN or infinity where the reference is finite fails.
//   integers and bool: exact, except that an output computed through a float-to-integer conversion
//           may differ by 1 (rounding of values that sit on a tie in float64 but not in float32).
#pragma once
#include <string>
#include <vector>

#include "interp/tensor_data.h"
#include "ir/program.h"

namespace ekb {

struct OutputComparison {
  std::string name;
  double max_abs_error = 0, max_rel_error = 0;  // rel: the normalised error above
  double tolerance = 0;
  int64_t worst_index = -1;
  double worst_got = 0, worst_want = 0;
  bool nonfinite = false;
  bool pass = true;
};

double tolerance_for(DType t);
// The reduction depth T above, and the tolerance of output (or any) tensor `tensor` of `p`.
double reduction_terms(const Program& p, int tensor);
double tolerance_for(const Program& p, int tensor);
// The difference an integer or bool output of `p` may have: 1 when some stage converts a float to an
// integer, else 0.
double integer_tolerance(const Program& p);
// `tolerance_scale` widens the rule when `want` is itself a float32 kernel's result (the harness
// compares a candidate with the baseline on inputs the reference never saw: 2).
std::vector<OutputComparison> compare_outputs(const Program& p, const std::vector<TensorData>& got,
                                              const std::vector<TensorData>& want, double tolerance_scale = 1.0);

}  // namespace ekb

// Cross-check of ekb's float64 reference interpreter against an oracle nobody on the project wrote:
// the ONNX node tests of Debian's libonnx-testdata. Each tests/onnx/cases/<test>.ekb is the L0
// transcription of the ONNX node test <test> (with the attributes that test's model.onnx sets); it
// declares the model's inputs and outputs in the model's order. The test loads that case with ekb's
// own API, feeds it test_data_set_0/input_N.pb, and compares every element of every output with
// output_N.pb. Shapes and element types must match exactly.
//
// Tolerance (|got - want| <= atol + rtol * |want|, NaN only equal to NaN, infinities exactly):
//   f32 outputs  atol 1e-6,  rtol 1e-5   the expected values were computed by numpy in float32, the
//                                         interpreter computes in float64
//   f64 outputs  atol 1e-12, rtol 1e-12  both sides compute in float64; only summation order and
//                                         libm differences remain
//   f16 outputs  atol 6e-8,  rtol 2^-11  the reference carries floats in double and never rounds to
//                                         f16 (docs/ir.md); 2^-11 is half an f16 ulp, the rounding
//                                         numpy's float16 result carries; 6e-8 ~ smallest subnormal
//   bf16 outputs atol 0,     rtol 2^-8   likewise, half a bf16 ulp
//   integer and bool outputs: exact.
// Looser tolerances for single outputs are in kLooserTolerance, each with its reason.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "interp/interpreter.h"
#include "interp/tensor_data.h"
#include "io/onnx_model.h"
#include "ir/check.h"
#include "ir/dtype.h"
#include "util/diagnostics.h"
#include "util/source.h"
#include "onnx_compare.h"

namespace ekb::onnx_test {
namespace {

namespace fs = std::filesystem;

const fs::path kDataDir = EKB_ONNX_DATA_DIR;
const fs::path kCasesDir = EKB_ONNX_CASES_DIR;

// Outputs ("case/output") that need more than the default tolerance of their type, and why.
const std::map<std::string, Tolerance> kLooserTolerance = {
    // ONNX computes y_scale = 5/255 in float32 (0.019607844, slightly above 5/255), so x / y_scale for
    // x = -2.5 is -127.49999 and rounds to -127; the reference computes in float64, where the quotient
    // is the exact tie -127.5 and rounds half to even, to -128. ekb's reference never rounds
    // intermediates to f32 (docs/ir.md), so this tie can differ by one quantization step.
    {"test_dynamicquantizelinear/y", {1, 0}},
    // The expected output of this case is written in the ONNX test source with 4 decimals
    // (onnx/backend/test/case/node/gridsample.py), so it is only good to 5e-5.
    {"test_gridsample_bicubic/Y", {5e-5, 1e-5}},
    // The RoiAlign test writes its input and expected output with 4 decimals
    // (onnx/backend/test/case/node/roialign.py); the expected values were computed from unrounded
    // inputs, so they are good to about 1e-4 (the worst seen is 8.4e-5).
    {"test_roialign_aligned_false/Y", {1e-4, 1e-5}},
    {"test_roialign_aligned_true/Y", {1e-4, 1e-5}},
};

// KNOWN_FAILURES: cases where ekb (not the case file) is wrong. They still run and are expected to
// fail with the recorded message; when one passes, or fails differently, the test fails and says so.
struct KnownFailure {
  std::string bug;     // what ekb gets wrong
  std::string expect;  // a piece of the failure message it gives today
};
// Empty since the bounds check learnt to match guards on whole non-linear indices (`o / 2`, `L[b]`),
// which test_convtranspose_pads and test_reversesequence_batch found.
const std::map<std::string, KnownFailure> KNOWN_FAILURES = {};

std::string data_missing_message() {
  return "ONNX node test data not found at " + kDataDir.string() +
         ": run scripts/setup.sh (it installs libonnx-testdata), or configure with "
         "-DEKB_ONNX_DATA_DIR=<dir holding test_*/model.onnx>";
}

std::vector<std::string> list_cases() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(kCasesDir, ec))
    if (e.is_regular_file() && e.path().extension() == ".ekb") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Runs one case; returns an empty string when every output matches, else every problem found.
std::string run_case(const std::string& name) {
  const fs::path ekb_file = kCasesDir / (name + ".ekb");
  const fs::path data = kDataDir / name / "test_data_set_0";
  std::ostringstream problems;
  std::shared_ptr<Program> program;
  try {
    program = load_program(read_source_file(ekb_file.string()));
  } catch (const DiagnosticError& e) {
    return "ekb rejects " + ekb_file.string() + ":\n" + e.diagnostics().render_all();
  } catch (const std::exception& e) {
    return "loading " + ekb_file.string() + ": " + e.what();
  }
  if (program->name != name) problems << "the kernel is named `" << program->name << "`, its file " << name << "\n";

  std::vector<TensorData> inputs, expected;
  try {
    for (size_t k = 0; fs::exists(data / ("input_" + std::to_string(k) + ".pb")); ++k)
      inputs.push_back(onnx_io::read_tensor(data / ("input_" + std::to_string(k) + ".pb")));
    for (size_t k = 0; fs::exists(data / ("output_" + std::to_string(k) + ".pb")); ++k)
      expected.push_back(onnx_io::read_tensor(data / ("output_" + std::to_string(k) + ".pb")));
  } catch (const std::exception& e) {
    return std::string("loading the ONNX test data: ") + e.what();
  }
  if (expected.empty()) return "no output_0.pb in " + data.string();
  if (inputs.size() != program->inputs.size())
    return "the ONNX test has " + std::to_string(inputs.size()) + " inputs, the case declares " +
           std::to_string(program->inputs.size());
  if (expected.size() != program->outputs.size())
    return "the ONNX test has " + std::to_string(expected.size()) + " outputs, the case declares " +
           std::to_string(program->outputs.size());
  // The declarations must match the .pb tensors exactly (the interpreter also insists for inputs).
  for (size_t k = 0; k < inputs.size(); ++k) {
    const TensorInfo& t = program->tensors[program->inputs[k]];
    if (t.dtype != inputs[k].dtype || t.shape != inputs[k].shape)
      problems << "input " << k << " `" << t.name << "` is declared " << shape_text(t.dtype, t.shape)
               << ", input_" << k << ".pb is " << inputs[k].shape_text() << "\n";
  }
  if (!problems.str().empty()) return problems.str();

  std::vector<TensorData> outputs;
  try {
    outputs = interpret(*program, inputs);
  } catch (const DiagnosticError& e) {
    return "the interpreter fails:\n" + e.diagnostics().render_all();
  } catch (const std::exception& e) {
    return std::string("the interpreter fails: ") + e.what();
  }
  if (outputs.size() != expected.size()) return "the interpreter returned " + std::to_string(outputs.size()) + " outputs";
  for (size_t k = 0; k < outputs.size(); ++k) {
    const std::string& out_name = program->tensors[program->outputs[k]].name;
    auto it = kLooserTolerance.find(name + "/" + out_name);
    Tolerance tol = it != kLooserTolerance.end() ? it->second : default_tolerance(expected[k].dtype);
    problems << compare("output " + std::to_string(k) + " `" + out_name + "`", outputs[k], expected[k], tol);
  }
  return problems.str();
}

// ---- the tests ----

TEST(OnnxData, Present) {
  ASSERT_TRUE(fs::is_directory(kDataDir)) << data_missing_message();
}

TEST(OnnxCases, Present) {
  // A missing or emptied cases directory must not pass as "nothing failed".
  EXPECT_GE(list_cases().size(), 50u) << "expected the ONNX cases in " << kCasesDir;
}

TEST(OnnxCases, KnownFailuresAndTolerancesNameCases) {
  std::vector<std::string> cases = list_cases();
  auto has = [&](const std::string& n) { return std::binary_search(cases.begin(), cases.end(), n); };
  for (const auto& [n, why] : KNOWN_FAILURES) EXPECT_TRUE(has(n)) << "KNOWN_FAILURES names no case: " << n;
  for (const auto& [n, tol] : kLooserTolerance)
    EXPECT_TRUE(has(n.substr(0, n.find('/')))) << "kLooserTolerance names no case: " << n;
}

// The node test data stores everything in raw_data; the typed fields must load the same values
// (in the import's decoder, onnx_io::tensor_from_proto, which also reads every case's .pb files).
TEST(OnnxLoader, TypedFieldsAndRawDataAgree) {
  using TP = onnx::TensorProto;
  auto both = [](int type, auto fill_typed, std::string raw) {
    TP a, b;
    for (TP* t : {&a, &b}) {
      t->set_data_type(type);
      t->add_dims(2);
      t->add_dims(2);
    }
    fill_typed(a);
    b.set_raw_data(raw);
    TensorData da = onnx_io::tensor_from_proto(a, "typed"), db = onnx_io::tensor_from_proto(b, "raw");
    EXPECT_EQ(da.shape, (std::vector<int64_t>{2, 2}));
    EXPECT_TRUE(da.same_values(db)) << "element type " << type;
    return da;
  };
  auto bytes = [](const auto& values) {
    return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(values[0]));
  };
  std::vector<float> f = {1.5f, -2.25f, 0.0f, 3e-3f};
  TensorData tf = both(TP::FLOAT, [&](TP& t) { for (float v : f) t.add_float_data(v); }, bytes(f));
  EXPECT_EQ(tf.f[1], -2.25);
  std::vector<double> d = {1.5, -2.25, 1e300, -0.0};
  both(TP::DOUBLE, [&](TP& t) { for (double v : d) t.add_double_data(v); }, bytes(d));
  std::vector<int64_t> l = {1, -2, INT64_MAX, INT64_MIN};
  both(TP::INT64, [&](TP& t) { for (int64_t v : l) t.add_int64_data(v); }, bytes(l));
  std::vector<int32_t> i = {1, -2, INT32_MAX, INT32_MIN};
  both(TP::INT32, [&](TP& t) { for (int32_t v : i) t.add_int32_data(v); }, bytes(i));
  std::vector<int8_t> b = {1, -2, 127, -128};
  TensorData tb = both(TP::INT8, [&](TP& t) { for (int8_t v : b) t.add_int32_data(v); }, bytes(b));
  EXPECT_EQ(tb.i[3], -128);
  std::vector<uint8_t> u = {0, 1, 200, 255};
  both(TP::UINT8, [&](TP& t) { for (uint8_t v : u) t.add_int32_data(v); }, bytes(u));
  std::vector<uint8_t> q = {1, 0, 0, 1};
  both(TP::BOOL, [&](TP& t) { for (uint8_t v : q) t.add_int32_data(v); }, bytes(q));
  std::vector<uint16_t> h = {0x3c00, 0xc000, 0x7bff, 0x0001};  // 1, -2, 65504, smallest subnormal
  TensorData th = both(TP::FLOAT16, [&](TP& t) { for (uint16_t v : h) t.add_int32_data(v); }, bytes(h));
  EXPECT_EQ(th.f[2], 65504.0);
  EXPECT_EQ(th.f[3], std::ldexp(1.0, -24));
}

class CrossCheck : public ::testing::TestWithParam<std::string> {};

TEST_P(CrossCheck, MatchesOnnx) {
  const std::string name = GetParam();
  ASSERT_TRUE(fs::is_directory(kDataDir)) << data_missing_message();
  ASSERT_TRUE(fs::is_directory(kDataDir / name))
      << "no ONNX node test " << name << " in " << kDataDir << " (the case file must be named after one)";
  std::string failure = run_case(name);
  auto known = KNOWN_FAILURES.find(name);
  if (known == KNOWN_FAILURES.end()) {
    EXPECT_TRUE(failure.empty()) << "case " << name << " (tests/onnx/cases/" << name << ".ekb):\n" << failure;
  } else {
    const KnownFailure& k = known->second;
    EXPECT_FALSE(failure.empty()) << "case " << name << " is in KNOWN_FAILURES (" << k.bug
                                  << ") but now passes: remove it from the table";
    if (!failure.empty()) {
      EXPECT_NE(failure.find(k.expect), std::string::npos)
          << "case " << name << " is in KNOWN_FAILURES (" << k.bug << ", expected \"" << k.expect
          << "\") but fails differently:\n" << failure;
      std::cout << "[ known ekb bug ] " << name << ": " << k.bug << "\n";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Node, CrossCheck, ::testing::ValuesIn(list_cases()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CrossCheck);

}  // namespace
}  // namespace ekb::onnx_test

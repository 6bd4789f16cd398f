// `ekb import` (src/io) against implementations nobody here wrote:
//  - ONNX's node tests (libonnx-testdata): every node test whose model uses an operator the import
//    supports is imported, its imported L0 run by ekb's interpreter on test_data_set_0/input_N.pb and
//    compared with output_N.pb (the tolerances of onnx_compare.h); or it is refused, with the reason
//    the table expects. tests/onnx/import_expectations.txt lists every such test with its expected
//    outcome, so a regression either way (a pass that starts failing or being refused, a refusal
//    that starts importing, a test missing from the table) fails.
//  - The PyTorch-exported modules (pytorch-converted, pytorch-operator): real weights as
//    initializers, outputs computed by PyTorch; the same runner and table.
//  - Whole models exported on the GPU machine (bench/onnx/export_models.py) with onnxruntime's
//    outputs, when tests/onnx/models/ holds them; otherwise the test says it is skipped and why.
// Graph inputs that the importer needs as constants (a Reshape's shape, a Resize's scales: the
// node tests feed them as inputs) are bound to their input_N.pb values, as an exporter would have
// made them initializers. Structural tests of whole graphs composed here (with ONNX's protobuf
// API) and of the error messages follow; their values come from us, so they assert shapes,
// checks, degeneracy and invariants, never numbers.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "harness/inputs.h"
#include "interp/interpreter.h"
#include "io/import_suite.h"
#include "io/onnx_emit.h"
#include "io/onnx_import.h"
#include "io/onnx_model.h"
#include "ir/check.h"
#include "command_util.h"
#include "onnx_compare.h"
#include "suite/degenerate.h"
#include "suite/suite.h"
#include "util/diagnostics.h"
#include "util/source.h"

namespace ekb::onnx_test {
namespace {

namespace fs = std::filesystem;
using onnx_io::ImportError;

const fs::path kDataRoot = fs::path(EKB_ONNX_DATA_DIR).parent_path();  // .../data (node, pytorch-*)
const fs::path kExpectations = EKB_ONNX_IMPORT_EXPECTATIONS;
const fs::path kModelsDir = EKB_ONNX_MODELS_DIR;
const std::vector<std::string> kSets = {"node", "pytorch-converted", "pytorch-operator"};

// ---- the table ----

// `pass`: imports, and every output matches. `refuse REASON`: the import refuses, with REASON in its
// message. `nodata REASON`: imports, but the test's tensors cannot be compared (ONNX 1.12 stores
// bfloat16 results as uint16, ...): REASON is in the reading error.
struct Expectation {
  enum class Kind { pass, refuse, nodata } kind = Kind::pass;
  std::string reason;
};

std::map<std::string, Expectation> read_expectations() {
  std::map<std::string, Expectation> t;
  std::ifstream in(kExpectations);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string name, what;
    ss >> name >> what;
    Expectation e;
    e.kind = what == "pass" ? Expectation::Kind::pass : what == "refuse" ? Expectation::Kind::refuse : Expectation::Kind::nodata;
    std::getline(ss, e.reason);
    if (auto q = e.reason.find_first_not_of(' '); q != std::string::npos) e.reason.erase(0, q);
    if (what != "pass" && what != "refuse" && what != "nodata") e.reason = "unknown outcome `" + what + "` in the table";
    t[name] = e;
  }
  return t;
}

bool supported(const std::string& op) { return onnx_io::find_op(op) != nullptr; }

// The test's key ("node/test_add") and its primary operator (the first supported one in the model).
struct TestCase {
  std::string key, op;
  fs::path dir;
};

std::vector<TestCase> list_tests() {
  std::vector<TestCase> out;
  for (const auto& set : kSets) {
    std::error_code ec;
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(kDataRoot / set, ec))
      if (e.is_directory() && fs::exists(e.path() / "model.onnx")) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (const auto& d : dirs) {
      onnx_io::Model m;
      try {
        m = onnx_io::read_model(d / "model.onnx");
      } catch (const std::exception&) {
        continue;
      }
      std::string op;
      for (const auto& n : m.nodes)
        if (supported(n.op)) {
          op = n.op;
          break;
        }
      // The node tests are listed when they use a supported operator; the PyTorch modules all.
      if (set == "node" && op.empty()) continue;
      if (op.empty()) op = m.nodes.empty() ? "none" : m.nodes[0].op;
      out.push_back({set + "/" + d.filename().string(), op, d});
    }
  }
  return out;
}

const std::vector<TestCase>& all_tests() {
  static const std::vector<TestCase> tests = list_tests();
  return tests;
}

// ---- running one test ----

struct Outcome {
  bool imported = false;
  std::string error;       // the import's refusal
  std::string data_error;  // imported, but the test's tensors are of a type ekb cannot read
  std::string mismatch;    // empty when every output matched
};

// Tolerance: the node tests' as in onnx_compare.h; PyTorch's outputs were computed in float32 with
// its own summation order (convolutions of up to 144 terms), so f32 there is compared at 1e-4
// relative to the output's scale.
Tolerance tolerance_for(const std::string& key, const TensorData& want) {
  Tolerance t = default_tolerance(want.dtype);
  if (key.rfind("node/", 0) != 0 && want.dtype == DType::f32) {
    double scale = 0;
    for (double v : want.f) scale = std::max(scale, std::fabs(v));
    t = {1e-4 * std::max(scale, 1.0), 1e-4};
  }
  // ONNX computes x / y_scale in float32, ekb in float64: a quotient at an exact tie (-127.5 in
  // float64) can round one quantization step apart (see tests/onnx/onnx_crosscheck_test.cpp).
  if (key == "node/test_dynamicquantizelinear_expanded" && want.dtype == DType::u8) t = {1, 0};
  return t;
}

Outcome run_test(const TestCase& tc, onnx_io::ImportOptions opts = {}) {
  Outcome o;
  const fs::path data = tc.dir / "test_data_set_0";
  onnx_io::Model m;
  try {
    m = onnx_io::read_model(tc.dir / "model.onnx");
  } catch (const std::exception& e) {
    o.error = e.what();
    return o;
  }
  // The test's tensors; some hold types ekb has not (uint16, strings, optionals): then the import
  // is still tried, and the data problem reported after it.
  std::vector<TensorData> inputs, expected;
  std::string data_error;
  try {
    for (size_t k = 0; fs::exists(data / ("input_" + std::to_string(k) + ".pb")); ++k)
      inputs.push_back(onnx_io::read_tensor(data / ("input_" + std::to_string(k) + ".pb")));
    for (size_t k = 0; fs::exists(data / ("output_" + std::to_string(k) + ".pb")); ++k)
      expected.push_back(onnx_io::read_tensor(data / ("output_" + std::to_string(k) + ".pb")));
    if (inputs.size() != m.inputs.size())
      data_error = "the test has " + std::to_string(inputs.size()) + " input files for " + std::to_string(m.inputs.size()) +
                   " model inputs";
  } catch (const std::exception& e) {
    data_error = std::string("the test's data: ") + e.what();
  } catch (...) {
    data_error = "the test's data cannot be read as tensors";
  }
  std::map<std::string, const TensorData*> by_name;
  if (data_error.empty())
    for (size_t k = 0; k < inputs.size(); ++k) by_name[m.inputs[k].name] = &inputs[k];
  // Bind the graph inputs that feed inputs the importer needs as constants.
  for (const auto& n : m.nodes)
    for (size_t slot : onnx_io::static_inputs(n.op))
      if (slot < n.inputs.size() && by_name.count(n.inputs[slot])) opts.bound_inputs[n.inputs[slot]] = *by_name[n.inputs[slot]];
  opts.name = tc.dir.filename().string();
  // The op tasks are written and checked; fitting their activations (one more run of the model)
  // is left to the composed graphs' tests, to keep this runner fast.
  opts.fit_activations = false;
  onnx_io::ImportResult r;
  try {
    r = onnx_io::import_model(m, opts);
  } catch (const ImportError& e) {
    o.error = e.what();
    return o;
  }
  o.imported = true;
  if (!data_error.empty()) {
    o.data_error = data_error;
    return o;
  }
  std::shared_ptr<Program> p;
  try {
    p = load_program(std::make_shared<SourceFile>(r.model.file, r.model.text));
  } catch (const DiagnosticError& e) {
    o.mismatch = "the imported model does not load:\n" + e.diagnostics().render_all();
    return o;
  }
  std::vector<TensorData> feed;
  for (const auto& ti : r.model.inputs) {
    if (ti.kind == onnx_io::TaskInput::Kind::weight) feed.push_back(*ti.value);
    else feed.push_back(*by_name.at(ti.onnx));
  }
  std::vector<TensorData> got;
  try {
    got = interpret(*p, feed);
  } catch (const DiagnosticError& e) {
    o.mismatch = "the interpreter fails:\n" + e.diagnostics().render_all();
    return o;
  } catch (const std::exception& e) {
    o.mismatch = std::string("the interpreter fails: ") + e.what();
    return o;
  }
  if (got.size() != expected.size()) {
    o.mismatch = "the import has " + std::to_string(got.size()) + " outputs, the test " + std::to_string(expected.size());
    return o;
  }
  for (size_t k = 0; k < got.size(); ++k)
    o.mismatch += compare("output " + std::to_string(k) + " `" + r.model.outputs[k] + "`", got[k], expected[k],
                          tolerance_for(tc.key, expected[k]));
  return o;
}

// ---- the node tests and PyTorch modules ----

TEST(OnnxImportTable, ListsEveryTestThatUsesASupportedOperator) {
  ASSERT_TRUE(fs::is_directory(kDataRoot / "node")) << "no ONNX test data at " << kDataRoot << ": run scripts/setup.sh";
  auto table = read_expectations();
  ASSERT_GE(table.size(), 100u) << "expected the table in " << kExpectations;
  std::set<std::string> present;
  for (const auto& tc : all_tests()) {
    present.insert(tc.key);
    EXPECT_TRUE(table.count(tc.key)) << tc.key << " uses " << tc.op << " but is not in " << kExpectations
                                     << ": add it (pass, or refuse with the reason)";
  }
  for (const auto& [k, e] : table) EXPECT_TRUE(present.count(k)) << kExpectations << " names " << k << ", which is no such test";
}

class ImportNodeTests : public ::testing::TestWithParam<std::string> {};

// A table entry's group: its set and the first word of its name ("node_conv", "pytorch_converted_Conv1d").
// Groups come from the table alone (reading it costs nothing, unlike parsing 600 models in every
// test process of this executable).
std::string group_of(const std::string& key) {
  std::string set = key.substr(0, key.find('/')), name = key.substr(key.find('/') + 1);
  if (name.rfind("test_", 0) == 0) name = name.substr(5);
  if (name.rfind("operator_", 0) == 0) name = name.substr(9);
  std::string g = set + "_" + name.substr(0, name.find('_'));
  std::replace(g.begin(), g.end(), '-', '_');
  return g;
}

// One test per group: runs each of its ONNX tests and checks the table's outcome.
TEST_P(ImportNodeTests, MatchOrRefuseAsExpected) {
  const std::string group = GetParam();
  int ran = 0;
  for (const auto& [key, expect] : read_expectations()) {
    if (group_of(key) != group) continue;
    ++ran;
    TestCase tc{key, "", kDataRoot / key};
    Outcome o = run_test(tc);
    if (expect.kind == Expectation::Kind::pass) {
      EXPECT_TRUE(o.imported) << tc.key << ": expected to import and match, but the import refuses:\n" << o.error;
      EXPECT_TRUE(o.data_error.empty()) << tc.key << ": " << o.data_error;
      EXPECT_TRUE(o.mismatch.empty()) << tc.key << ": imported, but ekb's interpreter disagrees with ONNX:\n" << o.mismatch;
    } else if (expect.kind == Expectation::Kind::nodata) {
      EXPECT_TRUE(o.imported) << tc.key << ": expected to import, but the import refuses:\n" << o.error;
      EXPECT_NE(o.data_error.find(expect.reason), std::string::npos)
          << tc.key << ": expected the test's data to be unreadable (" << expect.reason << "), got `" << o.data_error
          << "`; mismatch: " << o.mismatch;
    } else {
      EXPECT_FALSE(o.imported) << tc.key << ": expected to be refused (" << expect.reason
                               << ") but it imports now; mismatch: " << (o.mismatch.empty() ? "none" : o.mismatch)
                               << "\nupdate " << kExpectations;
      EXPECT_NE(o.error.find(expect.reason), std::string::npos)
          << tc.key << ": refused, but not for the expected reason `" << expect.reason << "`:\n" << o.error;
    }
  }
  EXPECT_GT(ran, 0) << "no test in group " << group;
}

std::vector<std::string> groups() {
  std::set<std::string> g;
  for (const auto& [key, e] : read_expectations()) g.insert(group_of(key));
  return {g.begin(), g.end()};
}

INSTANTIATE_TEST_SUITE_P(Onnx, ImportNodeTests, ::testing::ValuesIn(groups()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ImportNodeTests);

// Writes the observed outcome of every listed test, in the table's format, to $EKB_ONNX_IMPORT_RECORD
// (to start or review the table; the file is read, not written, by the other tests).
TEST(OnnxImportTable, Record) {
  const char* path = std::getenv("EKB_ONNX_IMPORT_RECORD");
  if (!path) GTEST_SKIP() << "set EKB_ONNX_IMPORT_RECORD=FILE to write the observed outcomes";
  std::ofstream out(path);
  for (const auto& tc : all_tests()) {
    Outcome o = run_test(tc);
    if (o.imported && !o.data_error.empty()) out << tc.key << " nodata " << o.data_error.substr(o.data_error.rfind(": ") + 2) << "\n";
    else if (o.imported && o.mismatch.empty()) out << tc.key << " pass\n";
    else if (o.imported) out << tc.key << " MISMATCH " << o.mismatch.substr(0, o.mismatch.find('\n')) << "\n";
    else {
      // The reason without the file's path and the node's label, and without the list of every
      // supported operator.
      std::string why = o.error;
      if (auto q = why.find("model.onnx: "); q != std::string::npos) why = why.substr(q + 12);
      if (auto q = why.find("): "); q != std::string::npos && why.rfind("node ", 0) == 0) why = why.substr(q + 3);
      if (auto q = why.find(" (supported: Conv ("); q != std::string::npos) why = why.substr(0, q);
      out << tc.key << " refuse " << why.substr(0, why.find('\n')) << "\n";
    }
  }
}

// docs/import.md's table of operators names every operator the import supports.
TEST(OnnxImportDocs, EveryOperatorIsDocumented) {
  std::ifstream in(EKB_IMPORT_DOC);
  ASSERT_TRUE(in) << EKB_IMPORT_DOC;
  std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const auto& spec : onnx_io::op_table()) {
    std::string op = spec.op;
    bool found = doc.find("| " + op + " |") != std::string::npos || doc.find("| " + op + ", ") != std::string::npos ||
                 doc.find(", " + op + " |") != std::string::npos || doc.find(", " + op + ", ") != std::string::npos;
    EXPECT_TRUE(found) << op << " is not in the operator table of docs/import.md";
  }
}

// ---- whole models from the GPU machine ----

TEST(OnnxImportModels, MatchOnnxRuntime) {
  std::vector<fs::path> models;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(kModelsDir, ec))
    if (e.is_directory() && fs::exists(e.path() / "model.onnx")) models.push_back(e.path());
  if (models.empty())
    GTEST_SKIP() << "no whole-model references in " << kModelsDir
                 << ": they come from the GPU machine (PyTorch and onnxruntime): run `python3 bench/onnx/export_models.py "
                    "--out tests/onnx/models` there and bring the directory back (bench/README.md)";
  std::sort(models.begin(), models.end());
  for (const auto& d : models) {
    TestCase tc{"model/" + d.filename().string(), "model", d};
    Outcome o = run_test(tc);
    EXPECT_TRUE(o.imported) << d << ": " << o.error;
    EXPECT_TRUE(o.mismatch.empty()) << d << ": ekb's interpreter disagrees with onnxruntime:\n" << o.mismatch;
    if (o.imported && o.mismatch.empty()) std::cout << d.filename().string() << ": imported, matches onnxruntime\n";
  }
}

// ---- graphs composed here: structure, checks, degeneracy, errors ----

using TP = ::onnx::TensorProto;

struct Builder {
  ::onnx::ModelProto m;
  std::mt19937 rng{7};
  explicit Builder(int opset = 13) {
    m.set_ir_version(8);
    m.set_producer_name("ekb test");
    auto* o = m.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
  }
  ::onnx::GraphProto& g() { return *m.mutable_graph(); }
  void value(::onnx::ValueInfoProto* v, const std::string& name, int elem, const std::vector<std::string>& dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    auto* s = t->mutable_shape();
    for (const auto& d : dims) {
      auto* dim = s->add_dim();
      if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0]))) dim->set_dim_value(std::stoll(d));
      else dim->set_dim_param(d);
    }
  }
  void input(const std::string& name, const std::vector<std::string>& dims, int elem = TP::FLOAT) {
    value(g().add_input(), name, elem, dims);
  }
  void output(const std::string& name, const std::vector<std::string>& dims, int elem = TP::FLOAT) {
    value(g().add_output(), name, elem, dims);
  }
  // A float initializer ~ normal(mean, std), or positive when `positive`.
  void weight(const std::string& name, const std::vector<int64_t>& dims, double mean, double std, bool positive = false) {
    auto* t = g().add_initializer();
    t->set_name(name);
    t->set_data_type(TP::FLOAT);
    int64_t n = 1;
    for (int64_t d : dims) t->add_dims(d), n *= d;
    std::normal_distribution<double> nd(mean, std);
    for (int64_t k = 0; k < n; ++k) {
      double v = nd(rng);
      t->add_float_data(static_cast<float>(positive ? std::fabs(v) + 0.1 : v));
    }
  }
  void ints(const std::string& name, const std::vector<int64_t>& values) {
    auto* t = g().add_initializer();
    t->set_name(name);
    t->set_data_type(TP::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
  }
  void scalar(const std::string& name, float v) {
    auto* t = g().add_initializer();
    t->set_name(name);
    t->set_data_type(TP::FLOAT);
    t->add_float_data(v);
  }
  ::onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& ins, const std::vector<std::string>& outs,
                          const std::string& name = "") {
    auto* n = g().add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : ins) n->add_input(i);
    for (const auto& o : outs) n->add_output(o);
    return n;
  }
  static void attr(::onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void attr(::onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  static void attr(::onnx::NodeProto* n, const std::string& name, const std::string& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::STRING);
    a->set_s(v);
  }
  onnx_io::Model model(const std::string& name = "composed.onnx") { return onnx_io::parse_model(m.SerializeAsString(), name); }
  fs::path save(const fs::path& dir, const std::string& name) {
    fs::create_directories(dir);
    fs::path p = dir / name;
    std::ofstream(p, std::ios::binary) << m.SerializeAsString();
    return p;
  }
};

fs::path fresh_dir(const std::string& what) {
  fs::path d = fs::temp_directory_path() / ("ekb_import_test_" + what + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

std::string refusal(Builder& b, onnx_io::ImportOptions o = {}) {
  try {
    onnx_io::import_model(b.model(), o);
  } catch (const ImportError& e) {
    return e.what();
  }
  return "";
}

// A small edge CNN: strided conv + batchnorm + relu, depthwise conv + relu6 (Clip), pointwise conv,
// two identical Relu nodes (one task), max pool, global average pool, flatten, linear, softmax.
Builder small_cnn() {
  Builder b(13);
  b.input("image", {"1", "3", "16", "16"});
  b.output("probs", {"1", "10"});
  b.weight("w1", {8, 3, 3, 3}, 0, 1);
  b.weight("b1", {8}, 0, 0.1);
  b.weight("bn_s", {8}, 2, 0.2);
  b.weight("bn_b", {8}, 0, 0.5);
  b.weight("bn_m", {8}, 0, 0.3);
  b.weight("bn_v", {8}, 1, 0.2, true);
  b.weight("wd", {8, 1, 3, 3}, 0, 1);
  b.weight("wp", {16, 8, 1, 1}, 0, 0.5);
  b.weight("fc_w", {10, 16}, 0, 0.3);
  b.weight("fc_b", {10}, 0, 0.1);
  b.scalar("zero", 0.0f);
  b.scalar("six", 6.0f);
  auto* c1 = b.node("Conv", {"image", "w1", "b1"}, {"c1"}, "conv1");
  Builder::attr(c1, "kernel_shape", std::vector<int64_t>{3, 3});
  Builder::attr(c1, "strides", std::vector<int64_t>{2, 2});
  Builder::attr(c1, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("BatchNormalization", {"c1", "bn_s", "bn_b", "bn_m", "bn_v"}, {"bn"}, "bn1");
  b.node("Relu", {"bn"}, {"r1"}, "relu1");
  auto* dw = b.node("Conv", {"r1", "wd"}, {"dw"}, "dwconv");
  Builder::attr(dw, "group", int64_t{8});
  Builder::attr(dw, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Clip", {"dw", "zero", "six"}, {"r6"}, "relu6");
  b.node("Conv", {"r6", "wp"}, {"pw"}, "pwconv");
  b.node("Relu", {"pw"}, {"r2"}, "relu2");
  auto* mp = b.node("MaxPool", {"r2"}, {"mp"}, "pool");
  Builder::attr(mp, "kernel_shape", std::vector<int64_t>{2, 2});
  Builder::attr(mp, "strides", std::vector<int64_t>{2, 2});
  b.node("GlobalAveragePool", {"mp"}, {"gap"}, "gap");
  b.node("Flatten", {"gap"}, {"flat"}, "flatten");
  auto* fc = b.node("Gemm", {"flat", "fc_w", "fc_b"}, {"logits"}, "fc");
  Builder::attr(fc, "transB", int64_t{1});
  b.node("Softmax", {"logits"}, {"probs"}, "softmax");
  return b;
}

TEST(OnnxImportGraph, SmallCnnBecomesSuiteTasks) {
  Builder b = small_cnn();
  fs::path dir = fresh_dir("cnn");
  fs::path model = b.save(dir / "in", "small_cnn.onnx");
  onnx_io::ImportToDirOptions o;
  o.out_dir = dir / "out";
  o.degenerate = onnx_io::DegeneratePolicy::skip;
  onnx_io::ImportReport rep = onnx_io::import_to_directory(model, o);
  ASSERT_FALSE(rep.tasks.empty());
  EXPECT_EQ(rep.domain, "vision");
  const auto& whole = rep.tasks[0];
  EXPECT_EQ(whole.task, "small_cnn_1x3x16x16");
  EXPECT_EQ(whole.category, "model");
  EXPECT_EQ(whole.nodes, 12u);
  EXPECT_TRUE(whole.degenerate.empty()) << "the whole model is degenerate:\n" << ::testing::PrintToString(whole.degenerate);
  EXPECT_TRUE(whole.written);
  std::map<std::string, int> per_op;
  for (size_t k = 1; k < rep.tasks.size(); ++k) per_op[rep.tasks[k].op]++;
  // Three convolutions of different shapes; two Relu nodes of different shapes (one per node);
  // Flatten is a copy (no task of its own).
  EXPECT_EQ(per_op["Conv"], 3);
  EXPECT_EQ(per_op["Relu"], 2);
  EXPECT_EQ(per_op["Flatten"], 0);
  for (const char* op : {"BatchNormalization", "Clip", "MaxPool", "GlobalAveragePool", "Gemm", "Softmax"})
    EXPECT_EQ(per_op[op], 1) << op;
  EXPECT_FLOAT_EQ(whole.flops > 0 ? 1.0 : 0.0, 1.0);
  for (const auto& t : rep.tasks) {
    EXPECT_GT(t.bytes, 0) << t.task;
    if (!t.degenerate.empty()) EXPECT_FALSE(t.written) << t.task;
  }
  // What `ekb --suite DIR check --suite` checks: the written files load as a suite and none is degenerate.
  Suite s = Suite::load(dir / "out");
  size_t written = 0;
  for (const auto& t : rep.tasks) written += t.written;
  EXPECT_EQ(s.tasks().size(), written);
  for (const auto& t : s.tasks()) EXPECT_TRUE(check_degenerate(*t.program).ok()) << t.name;
  // The model's output is a softmax: each row sums to 1 (an invariant, not a number of ours).
  const Task* mt = s.find("small_cnn_1x3x16x16");
  ASSERT_NE(mt, nullptr);
  auto out = interpret(*mt->program, generate_inputs(*mt->program, 1));
  double sum = 0;
  for (double v : out[0].f) sum += v;
  EXPECT_NEAR(sum, 1.0, 1e-9);
  // Leading comments say where each task comes from.
  std::ifstream conv(dir / "out" / "ops" / "small_cnn_conv_1.ekb");
  std::string text((std::istreambuf_iterator<char>(conv)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("node 0 `conv1` (Conv) with"), std::string::npos) << text;
  EXPECT_NE(text.find("strides=[2, 2]"), std::string::npos) << text;
  // A second import into the same directory replaces nothing without --force.
  EXPECT_THROW(onnx_io::import_to_directory(model, o), ImportError);
  o.force = true;
  EXPECT_NO_THROW(onnx_io::import_to_directory(model, o));
  fs::remove_all(dir);
}

// Gelu (opset 20) has no node test in ONNX 1.12: its import is checked against the same function
// written with operators the node tests do verify (Div, Erf, Add, Mul; Mul, Add, Tanh).
std::vector<TensorData> run_imported(Builder& b, const TensorData& x) {
  onnx_io::ImportOptions o;
  o.op_tasks = false;
  onnx_io::ImportResult r = onnx_io::import_model(b.model(), o);
  auto p = load_program(std::make_shared<SourceFile>(r.model.file, r.model.text));
  std::vector<TensorData> feed;
  for (const auto& ti : r.model.inputs) feed.push_back(ti.kind == onnx_io::TaskInput::Kind::weight ? *ti.value : x);
  return interpret(*p, feed);
}

TEST(OnnxImportGraph, GeluMatchesItsDefinitionInVerifiedOperators) {
  TensorData x("x", DType::f32, {4, 16});
  for (int64_t k = 0; k < x.size(); ++k) x.f[static_cast<size_t>(k)] = -4.0 + 8.0 * static_cast<double>(k) / 63.0;
  for (std::string approx : {"none", "tanh"}) {
    Builder g(20);
    g.input("x", {"4", "16"});
    g.output("y", {"4", "16"});
    auto* n = g.node("Gelu", {"x"}, {"y"}, "gelu");
    Builder::attr(n, "approximate", approx);
    Builder d(13);
    d.input("x", {"4", "16"});
    d.output("y", {"4", "16"});
    d.scalar("half", 0.5f);
    d.scalar("one", 1.0f);
    if (approx == "none") {
      d.scalar("sqrt2", static_cast<float>(std::sqrt(2.0)));
      d.node("Div", {"x", "sqrt2"}, {"a"});
      d.node("Erf", {"a"}, {"b"});
    } else {
      d.scalar("c", 0.044715f);
      d.scalar("k", static_cast<float>(std::sqrt(2.0 / M_PI)));
      d.node("Mul", {"x", "x"}, {"x2"});
      d.node("Mul", {"x2", "x"}, {"x3"});
      d.node("Mul", {"x3", "c"}, {"cx3"});
      d.node("Add", {"x", "cx3"}, {"in"});
      d.node("Mul", {"in", "k"}, {"a"});
      d.node("Tanh", {"a"}, {"b"});
    }
    d.node("Add", {"b", "one"}, {"e"});
    d.node("Mul", {"x", "e"}, {"f"});
    d.node("Mul", {"f", "half"}, {"y"});
    std::vector<TensorData> got = run_imported(g, x), want = run_imported(d, x);
    // The definition's constants are float32 (as an exporter writes them), Gelu's float64.
    EXPECT_EQ(compare("gelu " + approx, got[0], want[0], {1e-7, 1e-6}), "");
  }
}

TEST(OnnxImportGraph, IdenticalNodesShareOneTask) {
  Builder b(13);
  b.input("x", {"2", "8"});
  b.output("y", {"2", "8"});
  b.node("Tanh", {"x"}, {"a"}, "t1");
  b.node("Tanh", {"a"}, {"y"}, "t2");
  onnx_io::ImportResult r = onnx_io::import_model(b.model(), {});
  ASSERT_EQ(r.ops.size(), 1u);
  EXPECT_EQ(r.ops[0].nodes, (std::vector<int>{0, 1}));
  EXPECT_NE(r.ops[0].text.find("and 1 more with the same attributes and shapes: node 1 `t2`"), std::string::npos) << r.ops[0].text;
}

// Relu of exp(x) never sees a negative value: the whole model and the Relu task are degenerate,
// the Exp task is not.
Builder relu_of_exp() {
  Builder b(13);
  b.input("x", {"4", "8"});
  b.output("y", {"4", "8"});
  b.node("Exp", {"x"}, {"e"}, "exp");
  b.node("Relu", {"e"}, {"y"}, "relu");
  return b;
}

TEST(OnnxImportGraph, DegeneratePolicies) {
  fs::path dir = fresh_dir("degenerate");
  fs::path model = relu_of_exp().save(dir / "in", "relu_exp.onnx");
  onnx_io::ImportToDirOptions o;
  o.out_dir = dir / "error";
  onnx_io::ImportReport rep = onnx_io::import_to_directory(model, o);
  EXPECT_FALSE(rep.ok);
  EXPECT_EQ(rep.degenerate, 2u);
  EXPECT_FALSE(fs::exists(dir / "error")) << "nothing is written when the policy is error";
  for (const auto& t : rep.tasks) {
    if (t.op == "Exp") EXPECT_TRUE(t.degenerate.empty());
    else {
      ASSERT_FALSE(t.degenerate.empty()) << t.task;
      EXPECT_NE(t.degenerate[0].find("always takes its first operand"), std::string::npos) << t.degenerate[0];
    }
  }
  o.out_dir = dir / "skip";
  o.degenerate = onnx_io::DegeneratePolicy::skip;
  rep = onnx_io::import_to_directory(model, o);
  EXPECT_TRUE(rep.ok);
  EXPECT_TRUE(fs::exists(dir / "skip" / "ops" / "relu_exp_exp_1.ekb"));
  EXPECT_FALSE(fs::exists(dir / "skip" / "relu_exp.ekb"));
  EXPECT_FALSE(fs::exists(dir / "skip" / "ops" / "relu_exp_relu_1.ekb"));
  o.out_dir = dir / "keep";
  o.degenerate = onnx_io::DegeneratePolicy::keep;
  rep = onnx_io::import_to_directory(model, o);
  EXPECT_TRUE(rep.ok);
  std::ifstream kept(dir / "keep" / "relu_exp.ekb");
  std::string text((std::istreambuf_iterator<char>(kept)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.rfind("# degenerate", 0), 0u) << text;
  EXPECT_EQ(Suite::load(dir / "keep").tasks().size(), 3u);  // they check statically
  fs::remove_all(dir);
}

TEST(OnnxImportErrors, UnsupportedOperatorNamesTheNode) {
  Builder b(13);
  b.input("x", {"4"});
  b.output("y", {"4"});
  b.node("Relu", {"x"}, {"a"}, "first");
  b.node("Hardmax", {"a"}, {"y"}, "the_node");
  std::string e = refusal(b);
  EXPECT_NE(e.find("node 1 `the_node` (Hardmax)"), std::string::npos) << e;
  EXPECT_NE(e.find("operator `Hardmax` is not supported"), std::string::npos) << e;
  EXPECT_NE(e.find("Conv ("), std::string::npos) << "the message lists what is supported: " << e;
}

TEST(OnnxImportErrors, UnsupportedAttributeValueNamesNodeAndAttribute) {
  Builder b(13);
  b.input("x", {"1", "1", "4", "4"});
  b.output("y", {"1", "1", "6", "6"});
  b.ints("pads", {0, 0, 1, 1, 0, 0, 1, 1});
  auto* n = b.node("Pad", {"x", "pads"}, {"y"}, "pad0");
  Builder::attr(n, "mode", std::string("wrap"));
  std::string e = refusal(b);
  EXPECT_NE(e.find("node 0 `pad0` (Pad)"), std::string::npos) << e;
  EXPECT_NE(e.find("`mode` = 'wrap'"), std::string::npos) << e;
  EXPECT_NE(e.find("supported: constant, edge, reflect"), std::string::npos) << e;
  Builder c(13);
  c.input("x", {"1", "1", "4", "4"});
  c.output("y", {"1", "1", "4", "4"});
  auto* r = c.node("Relu", {"x"}, {"y"}, "r");
  Builder::attr(r, "alpha", int64_t{1});
  e = refusal(c);
  EXPECT_NE(e.find("node 0 `r` (Relu): attribute `alpha` = 1 is not supported"), std::string::npos) << e;
}

TEST(OnnxImportErrors, DynamicDimensionNeedsDim) {
  Builder b(13);
  b.input("x", {"batch", "3", "8", "8"});
  b.output("y", {"batch", "3", "8", "8"});
  b.node("Sigmoid", {"x"}, {"y"}, "s");
  std::string e = refusal(b);
  EXPECT_NE(e.find("model input `x` dimension 0 is `batch`"), std::string::npos) << e;
  EXPECT_NE(e.find("--dim batch=N"), std::string::npos) << e;
  onnx_io::ImportOptions o;
  o.dims["batch"] = 2;
  onnx_io::ImportResult r = onnx_io::import_model(b.model(), o);
  EXPECT_NE(r.model.text.find("in x : f32[2, 3, 8, 8]"), std::string::npos) << r.model.text;
}

TEST(OnnxImportErrors, RunTimeShapeIsRefused) {
  Builder b(13);
  b.input("x", {"2", "6"});
  b.input("shape", {"2"}, TP::INT64);
  b.output("y", {"3", "4"});
  b.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  std::string e = refusal(b);
  EXPECT_NE(e.find("node 0 `reshape` (Reshape): input 1 (`shape`, the shape) must be known at import"), std::string::npos) << e;
  // The same shape from Shape/Gather/Concat of static shapes folds at import.
  Builder c(13);
  c.input("x", {"2", "6"});
  c.output("y", {"3", "4"});
  c.ints("three", {3});
  c.ints("minus1", {-1});
  c.node("Concat", {"three", "minus1"}, {"s"}, "cat");
  Builder::attr(c.g().mutable_node(0), "axis", int64_t{0});
  c.node("Reshape", {"x", "s"}, {"y"}, "reshape");
  onnx_io::ImportResult r = onnx_io::import_model(c.model(), {});
  EXPECT_NE(r.model.text.find("out y : f32[3, 4]"), std::string::npos) << r.model.text;
}

TEST(OnnxImportErrors, DeclaredShapeMustAgree) {
  Builder b(13);
  b.input("x", {"2", "6"});
  b.output("y", {"2", "5"});
  b.node("Relu", {"x"}, {"y"}, "r");
  std::string e = refusal(b);
  EXPECT_NE(e.find("ekb infers f32[2, 6] for `y`, the model declares dimension 1 as 5"), std::string::npos) << e;
}

TEST(OnnxImportErrors, NothingWrittenOnError) {
  Builder b(13);
  b.input("x", {"4"});
  b.output("y", {"4"});
  b.node("Hardmax", {"x"}, {"y"}, "h");
  fs::path dir = fresh_dir("error");
  fs::path model = b.save(dir / "in", "bad.onnx");
  onnx_io::ImportToDirOptions o;
  o.out_dir = dir / "out";
  EXPECT_THROW(onnx_io::import_to_directory(model, o), ImportError);
  EXPECT_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}

// The command as a user runs it: `ekb import`, then `ekb --suite DIR check --suite` on the result;
// an unsupported operator exits 1 naming the node, with nothing written.
TEST(OnnxImportCommand, ImportsChecksAndRefuses) {
  fs::path dir = fresh_dir("cli");
  fs::path model = small_cnn().save(dir / "in", "edge_cnn.onnx");
  std::string ekb = EKB_BINARY;
  auto r = test::run_command(ekb + " import " + model.string() + " -o " + (dir / "out").string() + " --degenerate skip --json 2>&1");
  ASSERT_EQ(r.status, 0) << r.out;
  auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  EXPECT_EQ(j["domain"], "vision");
  EXPECT_EQ(j["tasks"][0]["task"], "edge_cnn_1x3x16x16");
  EXPECT_TRUE(j["tasks"][0]["written"].get<bool>());
  r = test::run_command(ekb + " --suite " + (dir / "out").string() + " check --suite 2>&1");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find(" 0 degenerate"), std::string::npos) << r.out;
  Builder b(13);
  b.input("x", {"4"});
  b.output("y", {"4"});
  b.node("Hardmax", {"x"}, {"y"}, "hm");
  fs::path bad = b.save(dir / "in", "bad.onnx");
  r = test::run_command(ekb + " import " + bad.string() + " -o " + (dir / "bad_out").string() + " 2>&1");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("bad.onnx: node 0 `hm` (Hardmax): operator `Hardmax` is not supported"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir / "bad_out"));
  r = test::run_command(ekb + " import " + model.string() + " -o " + (dir / "x").string() + " --dim nonsense 2>&1");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("is not NAME=VALUE"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

TEST(OnnxImportDistributions, WeightsAreFittedToTheirValues) {
  Builder b(13);
  b.input("x", {"1", "16"});
  b.output("y", {"1", "4"});
  b.weight("w", {16, 4}, 0.1, 0.25);
  b.weight("bias", {4}, 1, 0.1, true);
  b.node("Gemm", {"x", "w", "bias"}, {"y"}, "fc");
  onnx_io::ImportResult r = onnx_io::import_model(b.model(), {});
  ASSERT_EQ(r.model.inputs.size(), 3u);
  EXPECT_EQ(r.model.inputs[0].dist, "uniform(-1, 1)");           // the model input's default
  EXPECT_EQ(r.model.inputs[1].dist.rfind("normal(0.", 0), 0u) << r.model.inputs[1].dist;  // mean near 0.1
  EXPECT_EQ(r.model.inputs[2].dist.rfind("positive(", 0), 0u) << r.model.inputs[2].dist;  // all > 0
  onnx_io::ImportOptions o;
  o.input_range = std::make_pair(0.0, 255.0);
  r = onnx_io::import_model(b.model(), o);
  EXPECT_EQ(r.model.inputs[0].dist, "uniform(0, 255)");
}

}  // namespace
}  // namespace ekb::onnx_test

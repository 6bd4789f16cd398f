// What every export's header says about its tensors and launches, and the example's tensor table
// (export_parts.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/compare.h"
#include "io/export_parts.h"
#include "ir/printer.h"

namespace ekb::io::detail {

namespace {

const TensorStmt* declaration(const Program& p, const std::string& name) {
  if (!p.module || !p.module->kernel) return nullptr;
  for (const auto& st : p.module->kernel->stmts)
    if (auto* t = std::get_if<TensorStmt>(&st.node); t && t->name == name) return t;
  return nullptr;
}

// "[N, CI, H, W] = [1, 16, 32, 32]", or "[16, 3]" when the declaration writes the numbers.
std::string shape_text(const Program& p, const lower::TensorArg& t) {
  std::string numbers = fmt::format("[{}]", fmt::join(t.shape, ", "));
  const TensorStmt* d = declaration(p, t.name);
  if (!d || d->shape.size() != t.shape.size()) return numbers;
  std::vector<std::string> exprs;
  for (const auto& e : d->shape) exprs.push_back(print_expr(*e));
  std::string written = fmt::format("[{}]", fmt::join(exprs, ", "));
  return written == numbers ? numbers : written + " = " + numbers;
}

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

int64_t elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

// A double as a C literal that reads back to the same value.
std::string c_double(double v) {
  std::string s = fmt::format("{:.17g}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

double output_tolerance(const Program& p, const lower::TensorArg& t) {
  if (!is_float(t.type)) return integer_tolerance(p);
  int id = p.find_tensor(t.name);
  return id >= 0 ? tolerance_for(p, id) : tolerance_for(t.type);
}

const char* dist_enum(DistSpec::Kind k) {
  switch (k) {
    case DistSpec::Kind::uniform: return "EKB_UNIFORM";
    case DistSpec::Kind::normal: return "EKB_NORMAL";
    case DistSpec::Kind::positive: return "EKB_POSITIVE";
    case DistSpec::Kind::mixed: return "EKB_MIXED";
    case DistSpec::Kind::int_range: return "EKB_INT";
    case DistSpec::Kind::bernoulli: return "EKB_BERNOULLI";
  }
  return "EKB_UNIFORM";
}

const char* dtype_enum(DType t) {
  switch (t) {
    case DType::f64: return "EKB_F64";
    case DType::f32: return "EKB_F32";
    case DType::f16: return "EKB_F16";
    case DType::bf16: return "EKB_BF16";
    case DType::i64: return "EKB_I64";
    case DType::i32: return "EKB_I32";
    case DType::i16: return "EKB_I16";
    case DType::i8: return "EKB_I8";
    case DType::u8: return "EKB_U8";
    case DType::boolean: return "EKB_BOOL";
  }
  return "EKB_F32";
}

}  // namespace

const std::string& host_c_type(DType t) {
  static const std::string names[] = {"double", "float", "_Float16", "uint16_t", "int64_t", "int32_t", "int16_t", "int8_t", "uint8_t", "uint8_t"};
  switch (t) {
    case DType::f64: return names[0];
    case DType::f32: return names[1];
    case DType::f16: return names[2];
    case DType::bf16: return names[3];
    case DType::i64: return names[4];
    case DType::i32: return names[5];
    case DType::i16: return names[6];
    case DType::i8: return names[7];
    case DType::u8: return names[8];
    case DType::boolean: return names[9];
  }
  return names[1];
}

std::string program_argument(const ExportContext& c) {
  return c.options.program_argument.empty() ? c.program.name : c.options.program_argument;
}

std::string provenance(const ExportContext& c, const std::string& prefix) {
  const Target& t = c.kernel.target;
  std::string out = fmt::format("{0}Kernel {1}, exported by ekb (EdgeKernelBench) from {2}.\n", prefix, c.program.name,
                                c.options.origin.empty() ? "its program" : c.options.origin);
  std::string schedule = c.schedule == "default" ? "the default schedule"
                         : c.schedule == "own"   ? "the program's own schedule"
                         : c.schedule == "none"  ? "plain loops (no schedule)"
                                                 : "the schedule in " + c.schedule;
  out += fmt::format("{}Lowered for {}{} with {}.\n", prefix, t.describe(),
                     t.profile.empty() ? "" : " (device profile " + t.profile + ")", schedule);
  return out;
}

std::string tensor_layout(const ExportContext& c, const std::string& (*storage_type)(DType)) {
  const auto& k = c.kernel;
  std::string out =
      "/* The tensors, in the order the kernel takes them (inputs, then outputs). Each is dense and row-major:\n"
      " * the last index varies fastest, and element (i0, i1, ...) is at i0*STRIDES[0] + i1*STRIDES[1] + ...\n"
      " * (strides in elements). Inputs are read-only; the kernel writes every element of its outputs. */\n";
  size_t index = 0, total = k.inputs.size() + k.outputs.size();
  auto one = [&](const lower::TensorArg& t, bool output) {
    std::string macro = c.name + "_" + t.name;
    std::vector<int64_t> strides = row_major_strides(t.shape);
    int64_t n = elements(t.shape);
    out += fmt::format("\n/* {}: {} {} of {}, {} ({}), shape {}{}\n", t.name, output ? "output" : "input", index + 1, total,
                       dtype_name(t.type), storage_type(t.type), shape_text(c.program, t),
                       t.shape.empty() ? " (a scalar)" : fmt::format(", strides [{}]", fmt::join(strides, ", ")));
    ++index;
    if (output) {
      out += is_float(t.type)
                 ? fmt::format(" * ekb checks it against a float64 reference: max |got - ref| / (|ref| + rms(ref)) <= {:.3g}\n",
                               output_tolerance(c.program, t))
                 : fmt::format(" * ekb checks it against the reference exactly{}\n",
                               output_tolerance(c.program, t) > 0 ? ", up to 1 (it converts floats to integers)" : "");
    } else if (int id = c.program.find_tensor(t.name); id >= 0) {
      out += fmt::format(" * values: {}; ekb checked the kernel on such values only (a declared range is a promise\n"
                         " * about every value the kernel is given)\n",
                         c.program.tensors[id].dist.text());
    }
    out += " */\n";
    out += fmt::format("#define {}_RANK {}\n#define {}_ELEMENTS {}\n#define {}_BYTES {}\n", macro, t.shape.size(), macro, n, macro,
                       n * dtype_bytes(t.type));
    if (!t.shape.empty())
      out += fmt::format("#define {}_SHAPE {{{}}}\n#define {}_STRIDES {{{}}}\n", macro, fmt::join(t.shape, ", "), macro,
                         fmt::join(strides, ", "));
    if (output) out += fmt::format("#define {}_TOLERANCE {}\n", macro, c_double(output_tolerance(c.program, t)));
  };
  for (const auto& t : k.inputs) one(t, false);
  for (const auto& t : k.outputs) one(t, true);
  out += fmt::format("\n#define {0}_NUM_INPUTS {1}\n#define {0}_NUM_OUTPUTS {2}\n", c.name, k.inputs.size(), k.outputs.size());
  return out;
}

std::string example_tensor_table(const ExportContext& c) {
  const auto& k = c.kernel;
  std::string shapes, rows;
  auto one = [&](const lower::TensorArg& t, bool output) {
    shapes += fmt::format("static const int64_t shape_{}[] = {{{}}};\n", t.name,
                          t.shape.empty() ? std::string("1") : fmt::format("{}", fmt::join(t.shape, ", ")));
    DistSpec d;
    if (int id = c.program.find_tensor(t.name); id >= 0 && !output) d = c.program.tensors[id].dist;
    rows += fmt::format("    {{\"{}\", {}, {}, shape_{}, {}, {}, {}, {}, {}, {}, NULL}},\n", t.name, dtype_enum(t.type), t.shape.size(),
                        t.name, elements(t.shape), output ? 1 : 0, dist_enum(d.kind), c_double(d.a), c_double(d.b),
                        output ? c_double(output_tolerance(c.program, t)) : "0.0");
  };
  for (const auto& t : k.inputs) one(t, false);
  for (const auto& t : k.outputs) one(t, true);
  return shapes +
         "/* name, type, rank, shape, elements, is_output, distribution and its arguments (inputs), tolerance (outputs) */\n"
         "static ekb_tensor tensors[] = {\n" +
         rows + "};\n";
}

std::string launch_contract_block(const ExportContext& c, const gpu::LaunchContract& contract) {
  size_t buffers = c.kernel.inputs.size() + c.kernel.outputs.size() + contract.scratch.size();
  bool opencl = c.kernel.target.backend == Backend::opencl;
  std::string out = fmt::format(
      "\n/* The launch contract: the host runs these launches in order on one queue, each kernel taking every\n"
      " * buffer as a parameter ({}_NUM_BUFFERS of them: the inputs, the outputs, then the scratch buffers), and\n"
      " * waits for the last. Grid is {}, block {}.\n",
      c.name, opencl ? "the number of work-groups (the global size is grid x block)" : "the number of blocks",
      opencl ? "the work-items per group" : "the threads per block");
  for (const auto& l : contract.launches)
    out += fmt::format(" *   {}  grid ({}, {}, {})  block ({}, {}, {})\n", l.kernel, l.grid[0], l.grid[1], l.grid[2], l.block[0],
                       l.block[1], l.block[2]);
  if (contract.scratch.empty()) {
    out += " * No scratch buffers.\n */\n";
  } else {
    out += " * Scratch buffers: device memory for intermediate results, which the host allocates; the kernels\n"
           " * write them before they read them, so they need no initial value and may be reused between calls:\n";
    for (const auto& s : contract.scratch) out += fmt::format(" *   {}  {} bytes\n", s.name, s.bytes);
    out += " */\n";
  }
  out += fmt::format("#define {0}_NUM_LAUNCHES {1}\n#define {0}_NUM_SCRATCH {2}\n#define {0}_NUM_BUFFERS {3}\n", c.name,
                     contract.launches.size(), contract.scratch.size(), buffers);
  std::vector<uint64_t> sizes;
  for (const auto& s : contract.scratch) {
    out += fmt::format("#define {}_SCRATCH_{}_BYTES {}\n", c.name, s.name, s.bytes);
    sizes.push_back(s.bytes);
  }
  if (!sizes.empty()) out += fmt::format("#define {}_SCRATCH_BYTES_LIST {{{}}}\n", c.name, fmt::join(sizes, ", "));
  return out;
}

}  // namespace ekb::io::detail

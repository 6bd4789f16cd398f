// The import (onnx_import.h): values and shapes through the graph, constants evaluated at import,
// each node written by its operator's emitter into the model's kernel and into its own task, the
// texts checked by ekb's own checker (an import that writes L0 ekb rejects is a bug here, and says
// so), and the op tasks' activation inputs fitted to what the model computes on its inputs.
#include "io/onnx_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>

#include "harness/inputs.h"
#include "interp/interpreter.h"
#include "io/onnx_distributions.h"
#include "io/onnx_emit.h"
#include "io/onnx_fold_shapes.h"
#include "ir/check.h"
#include "ir/float16.h"
#include "ir/printer.h"
#include "util/source.h"

namespace ekb::onnx_io {

std::string supported_ops_text() {
  std::vector<std::string> ops;
  for (const auto& s : op_table()) ops.push_back(fmt::format("{} ({})", s.op, s.opsets));
  for (const char* op : {"Constant", "ConstantOfShape", "Shape", "Size"}) ops.push_back(fmt::format("{} (folded)", op));
  return join(ops);
}

namespace {

// Operators that only make values known at import (never a stage).
bool is_native_constant_op(const std::string& op) {
  return op == "Constant" || op == "ConstantOfShape" || op == "Shape" || op == "Size";
}

// Quantization operators keep integer weights as inputs even when their inputs are all known.
bool never_folded(const std::string& op) {
  return op == "QuantizeLinear" || op == "DequantizeLinear" || op == "QLinearConv" || op == "QLinearMatMul";
}

std::string type_text(DType t, const std::vector<int64_t>& shape) {
  return std::string(dtype_name(t)) + shape_text(shape);
}

std::string shape_tag(const std::vector<int64_t>& shape) {
  std::vector<std::string> p;
  for (int64_t d : shape) p.push_back(std::to_string(d));
  return p.empty() ? "scalar" : join(p, "x");
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Floats as the model holds them: rounded to their type (the interpreter carries doubles).
void round_to_type(TensorData& t) {
  if (t.dtype == DType::f32)
    for (auto& v : t.f) v = static_cast<double>(static_cast<float>(v));
  else if (t.dtype == DType::f16)
    for (auto& v : t.f) v = round_to_f16(v);
  else if (t.dtype == DType::bf16)
    for (auto& v : t.f) v = round_to_bf16(v);
}

std::string default_dist(DType t) {
  if (t == DType::boolean) return "bernoulli(0.5)";
  if (t == DType::u8 || t == DType::i8) return fmt::format("int({}, {})", int_min(t), int_max(t));
  if (!is_float(t)) return "int(-1000, 1000)";
  return "uniform(-1, 1)";
}

struct NodeRecord {
  const Node* node = nullptr;
  const OpSpec* spec = nullptr;
  std::vector<const Value*> ins;
  std::vector<Value*> outs;
};

// One node written as a kernel of its own (its task, or the kernel that folds it).
struct NodeKernel {
  std::vector<std::string> in_names, out_names, stages;
  std::vector<bool> read;
  std::string category;
};

class Importer {
 public:
  Importer(const Model& m, const ImportOptions& o) : m_(m), o_(o) {}

  ImportResult run() {
    if (m_.opset <= 0) throw ImportError(fmt::format("{}: the model imports no ai.onnx opset", m_.path));
    name_ = o_.name.empty() ? lower(std::filesystem::path(m_.path).stem().string()) : o_.name;
    name_ = sanitize_name(name_);
    for (const auto& n : m_.nodes)
      for (const auto& i : n.inputs) consumed_.insert(i);
    for (const auto& vi : m_.outputs) {
      graph_outputs_.insert(vi.name);
      consumed_.insert(vi.name);
      l0_[vi.name] = namer_.take(vi.name);
    }
    read_inputs();
    for (const auto& t : m_.initializers) add_constant(t.name, std::make_shared<TensorData>(t));
    for (const auto& n : m_.nodes) import_node(n);
    check_declared_shapes();
    ImportResult r;
    r.domain = domain();
    r.model = model_task(r.domain);
    std::shared_ptr<Program> p = check_text(r.model.file, r.model.text, "the whole model");
    r.model.text = print_module(*p->module);
    check_types(*p);
    if (o_.op_tasks) {
      if (o_.fit_activations) fit_activations(*p, r.model);
      r.ops = op_tasks(r.domain);
    }
    r.notes = notes_;
    return r;
  }

 private:
  const Model& m_;
  const ImportOptions& o_;
  std::string name_;
  std::map<std::string, std::unique_ptr<Value>> values_;
  std::map<std::string, std::string> l0_;  // ONNX value -> its name in the model's kernel
  std::map<std::string, std::string> input_dist_;  // model inputs' distributions
  std::map<std::string, const Node*> producer_;
  std::set<std::string> consumed_, graph_outputs_;
  Namer namer_;
  std::vector<std::string> stages_;
  std::vector<TaskInput> model_inputs_;
  std::set<std::string> declared_;
  std::vector<NodeRecord> records_;
  std::map<std::string, TensorData> activations_;
  std::vector<std::string> notes_;

  std::string where() const { return m_.path; }

  Value& new_value(const std::string& name) {
    auto v = std::make_unique<Value>();
    v->name = name;
    Value& ref = *v;
    values_[name] = std::move(v);
    return ref;
  }

  void add_constant(const std::string& name, std::shared_ptr<TensorData> t) {
    Value& v = new_value(name);
    v.dtype = t->dtype;
    v.shape = t->shape;
    v.uniform = t->size() > 0 && all_equal(*t);
    v.constant = std::move(t);
    v.defined = true;
  }

  void read_inputs() {
    for (const auto& vi : m_.inputs) {
      if (auto b = o_.bound_inputs.find(vi.name); b != o_.bound_inputs.end()) {
        add_constant(vi.name, std::make_shared<TensorData>(b->second));
        continue;
      }
      auto t = dtype_of_elem(vi.elem_type);
      if (!t && vi.elem_type == 0)
        throw ImportError(fmt::format("{}: model input `{}` is not a tensor (a sequence, map or optional), which ekb "
                                      "does not import", where(), vi.name));
      if (!t)
        throw ImportError(fmt::format("{}: model input `{}` has element type {}, which ekb tensors cannot hold", where(),
                                      vi.name, elem_type_name(vi.elem_type)));
      if (!vi.has_shape)
        throw ImportError(fmt::format("{}: model input `{}` declares no shape: ekb tasks have static shapes; export the "
                                      "model with a fixed input shape", where(), vi.name));
      Value& v = new_value(vi.name);
      v.dtype = *t;
      for (size_t k = 0; k < vi.dims.size(); ++k) {
        const Dim& d = vi.dims[k];
        int64_t value = d.value;
        if (!d.param.empty()) {
          auto it = o_.dims.find(d.param);
          if (it == o_.dims.end())
            throw ImportError(fmt::format("{}: model input `{}` dimension {} is `{}`, whose size is not fixed: give it with "
                                          "--dim {}=N", where(), vi.name, k, d.param, d.param));
          value = it->second;
        }
        if (d.param.empty() && !d.has_value)
          throw ImportError(fmt::format("{}: model input `{}` dimension {} has no size: ekb tasks have static shapes; "
                                        "export the model with a fixed input shape", where(), vi.name, k));
        if (value <= 0)
          throw ImportError(fmt::format("{}: model input `{}` dimension {} has size {}: ekb tensors have no empty "
                                        "dimensions", where(), vi.name, k, value));
        v.shape.push_back(value);
      }
      v.defined = true;
      if (graph_outputs_.count(vi.name))
        throw ImportError(fmt::format("{}: model input `{}` is also a model output, with no node between", where(), vi.name));
      l0_[vi.name] = namer_.take(vi.name);
      std::string dist = default_dist(*t);
      if (o_.input_range) {
        auto [lo, hi] = *o_.input_range;
        if (is_float(*t)) dist = fmt::format("uniform({}, {})", lo, hi);
        else if (*t != DType::boolean)
          dist = fmt::format("int({}, {})", std::max<int64_t>(static_cast<int64_t>(std::ceil(lo)), int_min(*t)),
                             std::min<int64_t>(static_cast<int64_t>(std::floor(hi)), int_max(*t)));
      }
      input_dist_[vi.name] = dist;
      TaskInput ti;
      ti.l0 = l0_[vi.name];
      ti.onnx = vi.name;
      ti.kind = TaskInput::Kind::model_input;
      ti.dist = dist;
      model_inputs_.push_back(ti);
      declared_.insert(vi.name);
    }
  }

  const std::string& l0_name(const Value& v) {
    auto it = l0_.find(v.name);
    if (it != l0_.end()) return it->second;
    return l0_[v.name] = namer_.take(v.name);
  }

  // ---- nodes ----

  void import_node(const Node& n) {
    auto fail = [&](const std::string& what) { throw ImportError(fmt::format("{}: {}: {}", where(), n.label(), what)); };
    if (!n.domain.empty())
      fail(fmt::format("operator domain `{}` is not supported (only the default domain, ai.onnx)", n.domain));
    std::vector<const Value*> ins;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      const std::string& name = n.inputs[k];
      if (name.empty()) {
        ins.push_back(nullptr);
        continue;
      }
      auto it = values_.find(name);
      if (it == values_.end() || !it->second->defined)
        fail(fmt::format("input {} `{}` is not a model input, an initializer, nor an output of an earlier node", k, name));
      ins.push_back(it->second.get());
    }
    for (const auto& o : n.outputs)
      if (!o.empty() && values_.count(o)) fail(fmt::format("output `{}` is defined twice", o));
    if (is_native_constant_op(n.op)) {
      fold_native(n, ins);
      return;
    }
    const OpSpec* spec = find_op(n.op);
    if (!spec)
      fail(fmt::format("operator `{}` is not supported (supported: {})", n.op, supported_ops_text()));
    NodeRecord r;
    r.node = &n;
    r.spec = spec;
    r.ins = ins;
    for (const auto& o : n.outputs) {
      if (o.empty() || !consumed_.count(o)) {
        r.outs.push_back(nullptr);
        continue;
      }
      Value& v = new_value(o);
      producer_[o] = &n;
      r.outs.push_back(&v);
    }
    bool any_out = false;
    for (Value* v : r.outs) any_out = any_out || v;
    if (!any_out) {
      notes_.push_back(fmt::format("{} computes nothing the model uses: left out", n.label()));
      return;
    }
    bool all_known = !never_folded(n.op);
    for (const Value* v : ins)
      if (v && !v->constant) all_known = false;
    if (all_known) {
      if (auto folded = fold_shape_op(n, m_.opset, where(), ins)) {
        for (size_t k = 0; k < r.outs.size() && k < folded->size(); ++k) {
          if (!r.outs[k]) continue;
          auto t = std::make_shared<TensorData>(std::move((*folded)[k]));
          t->name = r.outs[k]->name;
          Value& v = *r.outs[k];
          v.dtype = t->dtype;
          v.shape = t->shape;
          v.defined = true;
          v.uniform = t->size() > 0 && all_equal(*t);
          v.constant = std::move(t);
        }
        return;
      }
      fold(r);
      return;
    }
    // Written into the model's kernel.
    std::vector<std::string> in_names, out_names;
    for (const Value* v : ins) in_names.push_back(v ? l0_name(*v) : "");
    for (Value* v : r.outs) out_names.push_back(v ? l0_name(*v) : "");
    Emit e(n, m_.opset, where(), ins, in_names, r.outs, out_names, namer_);
    spec->emit(e);
    for (size_t k = 0; k < r.outs.size(); ++k)
      if (r.outs[k] && !r.outs[k]->defined)
        fail(fmt::format("internal: output {} got no type (a bug in ekb import)", k));
    for (size_t k = 0; k < ins.size(); ++k) {
      if (!e.read_inputs()[k] || declared_.count(ins[k]->name)) continue;
      if (!ins[k]->constant) continue;  // an earlier node's output
      TaskInput ti;
      ti.l0 = l0_name(*ins[k]);
      ti.onnx = ins[k]->name;
      ti.kind = TaskInput::Kind::weight;
      ti.value = ins[k]->constant;
      ti.dist = fit_distribution(*ins[k]->constant);
      model_inputs_.push_back(ti);
      declared_.insert(ins[k]->name);
    }
    for (const auto& s : e.stages()) stages_.push_back(s);
    records_.push_back(r);
  }

  void fold_native(const Node& n, const std::vector<const Value*>& ins) {
    auto fail = [&](const std::string& what) { throw ImportError(fmt::format("{}: {}: {}", where(), n.label(), what)); };
    if (n.outputs.size() != 1) fail("expected one output");
    std::shared_ptr<TensorData> t;
    if (n.op == "Constant") {
      if (n.attrs.size() != 1) fail("expected exactly one attribute");
      const auto& [name, a] = *n.attrs.begin();
      if (name == "value" && a.t) {
        t = std::make_shared<TensorData>(*a.t);
      } else if (name == "value_float" || name == "value_floats") {
        std::vector<double> v = name == "value_float" ? std::vector<double>{a.f} : a.floats;
        t = std::make_shared<TensorData>("", DType::f32, name == "value_float" ? std::vector<int64_t>{}
                                                                              : std::vector<int64_t>{static_cast<int64_t>(v.size())});
        t->f = v;
      } else if (name == "value_int" || name == "value_ints") {
        std::vector<int64_t> v = name == "value_int" ? std::vector<int64_t>{a.i} : a.ints;
        t = std::make_shared<TensorData>("", DType::i64, name == "value_int" ? std::vector<int64_t>{}
                                                                            : std::vector<int64_t>{static_cast<int64_t>(v.size())});
        t->i = v;
      } else {
        fail(fmt::format("attribute `{}` is not supported", name) + " (supported: value, value_float(s), value_int(s))");
      }
    } else if (n.op == "Shape" || n.op == "Size") {
      if (ins.empty() || !ins[0]) fail("no input");
      const auto& s = ins[0]->shape;
      if (n.op == "Size") {
        t = std::make_shared<TensorData>("", DType::i64, std::vector<int64_t>{});
        int64_t p = 1;
        for (int64_t d : s) p *= d;
        t->i = {p};
      } else {
        int64_t rank = static_cast<int64_t>(s.size());
        int64_t start = 0, end = rank;
        for (const auto& [name, a] : n.attrs) {
          if (name == "start") start = a.i;
          else if (name == "end") end = a.i;
          else fail(fmt::format("attribute `{}` is not supported (supported: start, end)", name));
        }
        if (start < 0) start += rank;
        if (end < 0) end += rank;
        start = std::clamp<int64_t>(start, 0, rank);
        end = std::clamp<int64_t>(end, start, rank);
        t = std::make_shared<TensorData>("", DType::i64, std::vector<int64_t>{end - start});
        t->i.assign(s.begin() + start, s.begin() + end);
      }
    } else {  // ConstantOfShape
      if (ins.empty() || !ins[0] || !ins[0]->constant)
        fail("its shape input must be known at import (an initializer, a Constant, or computed from static shapes)");
      std::vector<int64_t> shape = ins[0]->constant->i;
      TensorData fill("", DType::f32, {1});
      fill.f = {0.0};
      for (const auto& [name, a] : n.attrs) {
        if (name != "value" || !a.t || a.t->size() != 1) fail(fmt::format("attribute `{}` is not supported (supported: value, one element)", name));
        fill = *a.t;
      }
      t = std::make_shared<TensorData>("", fill.dtype, shape);
      for (int64_t k = 0; k < t->size(); ++k) {
        if (t->holds_float()) t->f[static_cast<size_t>(k)] = fill.f[0];
        else t->i[static_cast<size_t>(k)] = fill.i[0];
      }
    }
    t->name = n.outputs[0];
    add_constant(n.outputs[0], std::move(t));
  }

  // The node's own kernel: canonical names, the stages its emitter writes.
  NodeKernel node_kernel(const NodeRecord& r) {
    NodeKernel k;
    Namer names;
    const OpSpec& s = *r.spec;
    auto pick = [&](const std::vector<const char*>& table, bool variadic, size_t i, const char* fallback) {
      std::string base;
      if (variadic && table.size() == 1) base = fmt::format("{}{}", table[0], i);
      else if (i < table.size()) base = table[i];
      else base = fmt::format("{}{}", table.empty() ? fallback : table.back(), i);
      return names.take(base);
    };
    for (size_t i = 0; i < r.ins.size(); ++i) k.in_names.push_back(r.ins[i] ? pick(s.in_names, s.variadic_in, i, "X") : "");
    for (size_t i = 0; i < r.outs.size(); ++i)
      k.out_names.push_back(r.outs[i] ? pick(s.out_names, s.variadic_out && s.out_names.size() == 1, i, "Y") : "");
    Emit e(*r.node, m_.opset, where(), r.ins, k.in_names, r.outs, k.out_names, names);
    s.emit(e);
    k.stages = e.stages();
    k.read = e.read_inputs();
    k.category = e.category() ? e.category() : s.category;
    return k;
  }

  // Evaluates a node whose inputs are all known, through its own kernel and ekb's interpreter.
  void fold(NodeRecord& r) {
    NodeKernel k = node_kernel(r);
    std::string text = "kernel fold\n";
    std::vector<TensorData> inputs;
    for (size_t i = 0; i < r.ins.size(); ++i) {
      if (!k.read[i]) continue;
      const Value& v = *r.ins[i];
      text += fmt::format("  in {} : {} ~ {}\n", k.in_names[i], type_text(v.dtype, v.shape), fit_distribution(*v.constant));
      inputs.push_back(*v.constant);
    }
    for (size_t i = 0; i < r.outs.size(); ++i)
      if (r.outs[i]) text += fmt::format("  out {} : {}\n", k.out_names[i], type_text(r.outs[i]->dtype, r.outs[i]->shape));
    for (const auto& s : k.stages) text += "  " + s + "\n";
    std::shared_ptr<Program> p = check_text(r.node->label(), text, "a constant node");
    std::vector<TensorData> outs;
    try {
      outs = interpret(*p, inputs);
    } catch (const std::exception& e) {
      throw ImportError(fmt::format("{}: {}: evaluating it at import failed: {}", where(), r.node->label(), e.what()));
    }
    for (size_t i = 0, q = 0; i < r.outs.size(); ++i) {
      if (!r.outs[i]) continue;
      auto t = std::make_shared<TensorData>(std::move(outs[q++]));
      round_to_type(*t);
      t->name = r.outs[i]->name;
      Value& v = *r.outs[i];
      v.uniform = t->size() > 0 && all_equal(*t);
      v.constant = std::move(t);
    }
  }

  // ---- checks ----

  std::shared_ptr<Program> check_text(const std::string& file, const std::string& text, const std::string& what) {
    try {
      return load_program(std::make_shared<SourceFile>(file, text));
    } catch (const DiagnosticError& e) {
      throw ImportError(fmt::format("{}: the L0 ekb import wrote for {} does not check (a bug in ekb import):\n{}\n{}", where(),
                                    what, e.diagnostics().render_all(), text.size() < 6000 ? text : text.substr(0, 6000) + "..."));
    }
  }

  void check_declared_shapes() {
    auto check = [&](const ValueInfo& vi) {
      auto it = values_.find(vi.name);
      if (it == values_.end() || !it->second->defined || !vi.has_shape) return;
      const Value& v = *it->second;
      std::string who = producer_.count(vi.name) ? producer_.at(vi.name)->label() + ": " : "";
      if (vi.dims.size() != v.shape.size())
        throw ImportError(fmt::format("{}: {}ekb infers {} for `{}`, the model declares rank {}", where(), who,
                                      type_text(v.dtype, v.shape), vi.name, vi.dims.size()));
      for (size_t k = 0; k < vi.dims.size(); ++k) {
        int64_t d = vi.dims[k].value;
        if (!vi.dims[k].param.empty() && o_.dims.count(vi.dims[k].param)) d = o_.dims.at(vi.dims[k].param);
        if (d > 0 && d != v.shape[k])
          throw ImportError(fmt::format("{}: {}ekb infers {} for `{}`, the model declares dimension {} as {}", where(), who,
                                        type_text(v.dtype, v.shape), vi.name, k, d));
      }
      auto t = dtype_of_elem(vi.elem_type);
      if (vi.elem_type && t && *t != v.dtype)
        throw ImportError(fmt::format("{}: {}ekb infers {} for `{}`, the model declares {}", where(), who,
                                      type_text(v.dtype, v.shape), vi.name, elem_type_name(vi.elem_type)));
    };
    for (const auto& vi : m_.value_info) check(vi);
    for (const auto& vi : m_.outputs) {
      auto it = values_.find(vi.name);
      if (it == values_.end() || !it->second->defined)
        throw ImportError(fmt::format("{}: model output `{}` is not computed by any node", where(), vi.name));
      if (it->second->constant)
        throw ImportError(fmt::format("{}: model output `{}` is a constant (it depends on no model input): nothing to "
                                      "compute", where(), vi.name));
      check(vi);
    }
  }

  // Every stage's type and shape in the checked model is the ONNX value's.
  void check_types(const Program& p) {
    for (const auto& [onnx, l0] : l0_) {
      auto it = values_.find(onnx);
      if (it == values_.end() || it->second->constant) continue;
      int t = p.find_tensor(l0);
      if (t < 0) continue;
      const TensorInfo& ti = p.tensors[static_cast<size_t>(t)];
      const Value& v = *it->second;
      if (ti.dtype != v.dtype || ti.shape != v.shape)
        throw ImportError(fmt::format("{}: {}internal: ekb import wrote `{}` as {}, ONNX's `{}` is {} (a bug in ekb import)",
                                      where(), producer_.count(onnx) ? producer_.at(onnx)->label() + ": " : "", l0,
                                      type_text(ti.dtype, ti.shape), onnx, type_text(v.dtype, v.shape)));
    }
  }

  // ---- the tasks ----

  std::string domain() {
    if (!o_.domain.empty()) {
      const auto& known = known_domains();
      if (std::find(known.begin(), known.end(), o_.domain) == known.end())
        throw ImportError(fmt::format("unknown domain `{}` (known: {})", o_.domain, join(known)));
      return o_.domain;
    }
    for (const auto& ti : model_inputs_) {
      if (ti.kind != TaskInput::Kind::model_input) continue;
      const auto& s = values_.at(ti.onnx)->shape;
      if (s.size() == 4 && s[1] == 3) {
        notes_.push_back(fmt::format("domain: vision (input `{}` is an image batch {}); --domain sets another", ti.onnx,
                                     shape_text(s)));
        return "vision";
      }
    }
    notes_.push_back("domain: general (no image input seen); --domain sets another");
    return "general";
  }

  std::string model_header() const {
    std::string opsets;
    for (const auto& [d, v] : m_.opsets) opsets += fmt::format("{}{}:{}", opsets.empty() ? "" : ", ", d.empty() ? "ai.onnx" : d, v);
    return fmt::format("{} (producer {}, IR version {}, opset {})", std::filesystem::path(m_.path).filename().string(),
                       m_.producer.empty() ? "unknown" : m_.producer, m_.ir_version, opsets);
  }

  ImportedTask model_task(const std::string& domain) {
    ImportedTask t;
    t.kernel = name_;
    t.file = name_ + ".ekb";
    t.category = "model";
    for (const auto& r : records_) t.nodes.push_back(r.node->index);
    std::map<std::string, int> ops;
    for (const auto& n : m_.nodes) ops[n.op]++;
    std::vector<std::string> op_counts;
    for (const auto& [op, c] : ops) op_counts.push_back(fmt::format("{} x{}", op, c));
    std::string text = fmt::format("# ONNX model {}, imported by `ekb import`:\n", model_header());
    text += fmt::format("# the whole graph, {} node(s) ({}).\n", m_.nodes.size(), join(op_counts));
    text += "# Model inputs, then weights: every weight is an input whose distribution is fitted to the model's own\n"
            "# values (docs/import.md); a weight whose elements are all equal is written as a literal.\n";
    text += o_.input_range ? fmt::format("# The model inputs' distributions come from --input-range {},{}.\n", o_.input_range->first,
                                         o_.input_range->second)
                           : "# The model inputs' distributions are the defaults (--input-range sets them).\n";
    text += fmt::format("kernel {}\n  category model\n  domain {}\n", name_, domain);
    std::string first_shape;
    for (const auto& ti : model_inputs_) {
      const Value& v = *values_.at(ti.onnx);
      if (ti.kind == TaskInput::Kind::model_input && first_shape.empty()) first_shape = shape_tag(v.shape);
      std::string note = ti.kind == TaskInput::Kind::model_input ? fmt::format("  # model input `{}`", ti.onnx)
                         : ti.onnx != ti.l0                     ? fmt::format("  # weight `{}`", ti.onnx)
                                                                : "";
      text += fmt::format("  in {} : {} ~ {}{}\n", ti.l0, type_text(v.dtype, v.shape), ti.dist, note);
    }
    for (const auto& vi : m_.outputs) {
      const Value& v = *values_.at(vi.name);
      text += fmt::format("  out {} : {}\n", l0_.at(vi.name), type_text(v.dtype, v.shape));
      t.outputs.push_back(vi.name);
    }
    for (const auto& s : stages_) text += "  " + s + "\n";
    t.workload = name_ + "_" + (first_shape.empty() ? "w" : first_shape);
    text += fmt::format("\nworkloads\n  {}:\n", t.workload);
    t.text = text;
    t.inputs = model_inputs_;
    return t;
  }

  void fit_activations(const Program& p, const ImportedTask& model) {
    try {
      check_interpretable(p);
    } catch (const std::exception& e) {
      notes_.push_back(fmt::format("the model is too large to run once at import ({}): the op tasks' activation inputs "
                                   "get default distributions", e.what()));
      return;
    }
    std::vector<TensorData> inputs = generate_inputs(p, 1);
    for (size_t k = 0; k < model.inputs.size(); ++k)
      if (model.inputs[k].kind == TaskInput::Kind::weight) inputs[k] = *model.inputs[k].value;
    InterpretOptions io;
    io.keep_intermediates = true;
    std::vector<TensorData> outs;
    try {
      outs = interpret(p, inputs, io);
    } catch (const DiagnosticError& e) {
      throw ImportError(fmt::format("{}: the imported model fails in ekb's interpreter on its declared inputs (seed 1):\n{}",
                                    where(), e.diagnostics().render_all()));
    }
    std::map<std::string, std::string> onnx_of;
    for (const auto& [onnx, l0] : l0_) onnx_of[l0] = onnx;
    size_t q = 0;
    for (int t : p.outputs) activations_[onnx_of[p.tensors[static_cast<size_t>(t)].name]] = std::move(outs[q++]);
    for (const auto& ti : p.tensors)
      if (ti.role == TensorRole::intermediate) {
        TensorData& d = outs[q++];
        if (onnx_of.count(ti.name)) activations_[onnx_of[ti.name]] = std::move(d);
      }
    for (size_t k = 0; k < model.inputs.size(); ++k)
      if (model.inputs[k].kind == TaskInput::Kind::model_input) activations_[model.inputs[k].onnx] = inputs[k];
  }

  std::vector<ImportedTask> op_tasks(const std::string& domain) {
    struct Group {
      ImportedTask task;
      std::string decls, stages;
      const NodeRecord* first = nullptr;
      NodeKernel kernel;
    };
    std::vector<Group> groups;
    std::map<std::string, size_t> by_key;
    std::map<std::string, int> per_op;
    std::map<std::string, int> views;
    for (const auto& r : records_) {
      if (r.spec->kind == OpKind::view) {
        views[r.node->op]++;
        continue;
      }
      NodeKernel k = node_kernel(r);
      std::string decls, plain;
      std::vector<TaskInput> inputs;
      for (size_t i = 0; i < r.ins.size(); ++i) {
        if (!k.read[i]) continue;
        const Value& v = *r.ins[i];
        TaskInput ti;
        ti.l0 = k.in_names[i];
        ti.onnx = v.name;
        if (v.constant) {
          ti.kind = TaskInput::Kind::weight;
          ti.value = v.constant;
          ti.dist = fit_distribution(*v.constant);
        } else if (input_dist_.count(v.name)) {
          ti.kind = TaskInput::Kind::model_input;
          ti.dist = input_dist_.at(v.name);
        } else {
          ti.kind = TaskInput::Kind::activation;
          auto a = activations_.find(v.name);
          ti.dist = a != activations_.end() && a->second.size() > 0 ? fit_distribution(a->second) : default_dist(v.dtype);
        }
        plain += fmt::format("in {} : {}\n", ti.l0, type_text(v.dtype, v.shape));
        decls += fmt::format("  in {} : {} ~ {}\n", ti.l0, type_text(v.dtype, v.shape), ti.dist);
        inputs.push_back(ti);
      }
      std::vector<std::string> outputs;
      for (size_t i = 0; i < r.outs.size(); ++i) {
        if (!r.outs[i]) continue;
        std::string d = fmt::format("out {} : {}\n", k.out_names[i], type_text(r.outs[i]->dtype, r.outs[i]->shape));
        plain += d;
        decls += "  " + d;
        outputs.push_back(r.outs[i]->name);
      }
      std::string stages;
      for (const auto& s : k.stages) stages += "  " + s + "\n";
      std::string key = r.node->op + "\n" + plain + stages;
      auto it = by_key.find(key);
      if (it != by_key.end()) {
        groups[it->second].task.nodes.push_back(r.node->index);
        continue;
      }
      Group g;
      int n = ++per_op[r.node->op];
      g.task.op = r.node->op;
      g.task.kernel = fmt::format("{}_{}_{}", name_, lower(r.node->op), n);
      g.task.file = "ops/" + g.task.kernel + ".ekb";
      g.task.category = k.category;
      g.task.nodes.push_back(r.node->index);
      g.task.inputs = inputs;
      g.task.outputs = outputs;
      std::string tag = inputs.empty() ? "w" : shape_tag(values_.at(inputs[0].onnx)->shape);
      g.task.workload = g.task.kernel + "_" + tag;
      g.decls = decls;
      g.stages = stages;
      g.first = &r;
      by_key[key] = groups.size();
      groups.push_back(std::move(g));
    }
    if (!views.empty()) {
      std::vector<std::string> v;
      for (const auto& [op, c] : views) v.push_back(fmt::format("{} x{}", op, c));
      notes_.push_back(fmt::format("no task of their own for the copies {} (in the whole model's task only)", join(v)));
    }
    std::vector<ImportedTask> out;
    for (auto& g : groups) {
      const Node& n = *g.first->node;
      std::vector<std::string> attrs;
      for (const auto& [a, v] : n.attrs) attrs.push_back(fmt::format("{}={}", a, v.text()));
      std::string text = fmt::format("# ONNX {} from {}, imported by `ekb import`:\n", n.op, model_header());
      text += fmt::format("#   {}{}\n", n.label(), attrs.empty() ? "" : " with " + join(attrs, " "));
      if (g.task.nodes.size() > 1) {
        std::vector<std::string> others;
        for (size_t q = 1; q < g.task.nodes.size(); ++q) {
          const Node& o = m_.nodes[static_cast<size_t>(g.task.nodes[q])];
          others.push_back(o.name.empty() ? fmt::format("node {}", o.index) : fmt::format("node {} `{}`", o.index, o.name));
        }
        std::string list = join(others);
        if (list.size() > 300) list = list.substr(0, 300) + "...";
        text += fmt::format("#   and {} more with the same attributes and shapes: {}\n", others.size(), list);
      }
      std::vector<std::string> src;
      for (const auto& ti : g.task.inputs)
        src.push_back(fmt::format("{} ({})", ti.l0, ti.kind == TaskInput::Kind::weight        ? "the node's weight, fitted"
                                                    : ti.kind == TaskInput::Kind::model_input ? "a model input"
                                                                                              : "the model's activations there, fitted"));
      if (!src.empty()) text += fmt::format("# Input distributions: {} (docs/import.md).\n", join(src));
      text += fmt::format("kernel {}\n  category {}\n  domain {}\n", g.task.kernel, g.task.category, domain);
      text += g.decls + g.stages;
      text += fmt::format("\nworkloads\n  {}:\n", g.task.workload);
      std::shared_ptr<Program> p = check_text(g.task.file, text, n.label());
      g.task.text = print_module(*p->module);
      out.push_back(std::move(g.task));
    }
    return out;
  }
};

}  // namespace

ImportResult import_model(const Model& m, const ImportOptions& o) { return Importer(m, o).run(); }

}  // namespace ekb::onnx_io

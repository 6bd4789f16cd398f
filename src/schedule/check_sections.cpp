// Replays each backend's schedule and memory directives over the stages' loop axes, checking every
// name and arity on the way. L1 lines of L0 stages run first; L2 lines follow in order, and a stage
// an L2 directive creates (cache, rfactor, pack) gets its L1 lines as soon as it exists.
#include "schedule/check_sections.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "util/strings.h"

namespace ekb {

const std::vector<std::string>& known_backends() {
  static const std::vector<std::string> v = {"cpu", "cuda", "opencl"};
  return v;
}

namespace {

const std::vector<std::string> kL1 = {"split", "fuse", "reorder", "tile", "parallel", "vectorize", "unroll", "bind"};
const std::vector<std::string> kL2 = {"inline",   "compute_at", "store_at", "cache_read", "cache_write",
                                      "decompose_reduction", "rfactor", "pack", "double_buffer"};

struct StageAxes {
  std::vector<std::string> axes;
  std::set<std::string> reads;  // tensors the stage reads (for cache_read / pack)
  bool is_output = false;
  bool created = false;         // by an L2 directive
  bool has_reduction = false;
  int rank = 0;
};

class SectionChecker {
 public:
  SectionChecker(const Program& p, DiagnosticList& d) : p_(p), d_(d), src_(p.source()) {}

  void run() {
    const Module& m = *p_.module;
    std::map<std::pair<Layer, std::string>, const Section*> seen;
    std::set<std::string> backends;
    for (const auto& s : m.sections) {
      const char* layer = s.layer == Layer::schedule ? "schedule" : "memory";
      const auto& kb = known_backends();
      if (std::find(kb.begin(), kb.end(), s.backend) == kb.end()) {
        std::string near = closest_match(s.backend, kb);
        error(s.backend_loc, fmt::format("unknown backend `{}`", s.backend),
              (near.empty() ? std::string() : fmt::format("did you mean `{}`? ", near)) + "backends: cpu, cuda, opencl");
        continue;
      }
      auto key = std::make_pair(s.layer, s.backend);
      if (seen.count(key)) {
        error(s.loc, fmt::format("a second `{} {}` section", layer, s.backend),
              fmt::format("merge its lines into the first `{} {}` section", layer, s.backend));
        continue;
      }
      seen[key] = &s;
      backends.insert(s.backend);
    }
    for (const auto& b : backends) {
      auto sch = seen.find({Layer::schedule, b});
      auto mem = seen.find({Layer::memory, b});
      check_backend(b, sch == seen.end() ? nullptr : sch->second, mem == seen.end() ? nullptr : mem->second);
    }
  }

 private:
  const Program& p_;
  DiagnosticList& d_;
  SourcePtr src_;
  std::string backend_;
  std::map<std::string, StageAxes> stages_;
  std::map<std::string, std::vector<const ScheduleLine*>> pending_l1_;  // lines of stages not yet created

  void error(Loc loc, std::string msg, std::string fix) { d_.error(src_, loc, std::move(msg), std::move(fix)); }

  void init_stages() {
    stages_.clear();
    for (const auto& st : p_.stages) {
      StageAxes sa;
      for (const auto& v : st.vars) {
        sa.axes.push_back(v.name);
        if (v.reduction) sa.has_reduction = true;
      }
      sa.is_output = p_.tensors[st.tensor].role == TensorRole::output;
      sa.rank = st.n_lhs;
      collect_reads(*st.body, sa.reads);
      stages_[st.name] = std::move(sa);
    }
  }

  void collect_reads(const Expr& e, std::set<std::string>& out) {
    if (e.kind == ExprKind::access || (e.kind == ExprKind::name && e.ref == NameRef::scalar_tensor))
      out.insert(p_.tensors[e.id].name);
    for (const auto& a : e.args) collect_reads(*a, out);
  }

  void check_backend(const std::string& backend, const Section* sch, const Section* mem) {
    backend_ = backend;
    init_stages();
    pending_l1_.clear();
    // Stages the memory section will create, so L1 lines for them wait instead of failing.
    std::set<std::string> will_create;
    if (mem)
      for (const auto& line : mem->lines)
        for (const auto& d : line.directives)
          if (!d.outs.empty() && (d.name == "cache_read" || d.name == "cache_write" || d.name == "rfactor" || d.name == "pack"))
            will_create.insert(d.outs[0].text);
    if (sch) {
      for (const auto& line : sch->lines) {
        if (stages_.count(line.stage)) {
          apply_l1_line(line);
        } else if (will_create.count(line.stage)) {
          pending_l1_[line.stage].push_back(&line);
        } else {
          unknown_stage(line.loc, line.stage, line.stage == "" ? "" : "schedule");
        }
      }
    }
    if (mem) {
      for (const auto& line : mem->lines) {
        if (!stages_.count(line.stage)) {
          unknown_stage(line.loc, line.stage, "memory");
          continue;
        }
        for (const auto& d : line.directives) apply_l2(line.stage, d);
      }
    }
    for (const auto& [name, lines] : pending_l1_)
      for (const auto* line : lines) unknown_stage(line->loc, name, "schedule");
  }

  void unknown_stage(Loc loc, const std::string& name, const char*) {
    std::vector<std::string> names;
    for (const auto& [n, s] : stages_) names.push_back(n);
    std::string near = closest_match(name, names);
    bool is_input = p_.find_tensor(name) >= 0 && p_.tensors[p_.find_tensor(name)].role == TensorRole::input;
    error(loc,
          is_input ? fmt::format("`{}` is an input, not a stage; inputs have no loops to schedule", name)
                   : fmt::format("unknown stage `{}`", name),
          near.empty() ? "lines start with the name of a stage defined in the kernel, e.g. `Y: parallel i`"
                       : fmt::format("did you mean `{}`?", near));
  }

  // ---- argument helpers ----
  bool arity(const Directive& d, size_t min_args, size_t max_args, size_t min_outs, size_t max_outs, const char* usage) {
    bool ok = d.args.size() >= min_args && d.args.size() <= max_args && d.outs.size() >= min_outs && d.outs.size() <= max_outs;
    if (!ok) {
      error(d.loc, fmt::format("wrong number of arguments for `{}`", d.name), fmt::format("write `{}`", usage));
    }
    return ok;
  }

  bool axis_exists(const std::string& stage, const DirectiveArg& a) {
    const auto& axes = stages_[stage].axes;
    if (a.is_int || std::find(axes.begin(), axes.end(), a.text) == axes.end()) {
      std::string near = closest_match(a.text, axes);
      error(a.loc, fmt::format("`{}` is not a loop axis of `{}`", a.text, stage),
            fmt::format("the axes of `{}` are now {}{}", stage, quoted_list(axes),
                        near.empty() ? "" : fmt::format("; did you mean `{}`?", near)));
      return false;
    }
    return true;
  }

  bool positive_int(const DirectiveArg& a, const char* what) {
    if (!a.is_int || a.value < 1) {
      error(a.loc, fmt::format("{} must be a positive integer, got `{}`", what, a.text), "write a whole number like 4, 8 or 16");
      return false;
    }
    return true;
  }

  bool new_axes(const std::string& stage, const std::vector<DirectiveArg>& outs) {
    const auto& axes = stages_[stage].axes;
    std::set<std::string> fresh;
    for (const auto& o : outs) {
      if (std::find(axes.begin(), axes.end(), o.text) != axes.end() || fresh.count(o.text)) {
        error(o.loc, fmt::format("axis name `{}` is already used in `{}`", o.text, stage),
              "give each new axis a fresh name, e.g. io and ii for the pieces of i");
        return false;
      }
      fresh.insert(o.text);
    }
    return true;
  }

  size_t pos(const std::string& stage, const std::string& axis) {
    const auto& axes = stages_[stage].axes;
    return static_cast<size_t>(std::find(axes.begin(), axes.end(), axis) - axes.begin());
  }

  // ---- L1 ----
  void apply_l1_line(const ScheduleLine& line) {
    for (const auto& d : line.directives) apply_l1(line.stage, d);
  }

  void apply_l1(const std::string& s, const Directive& d) {
    if (std::find(kL2.begin(), kL2.end(), d.name) != kL2.end()) {
      error(d.loc, fmt::format("`{}` is a memory (L2) directive", d.name),
            fmt::format("move it under `memory {}`", backend_));
      return;
    }
    auto& axes = stages_[s].axes;
    if (d.name == "split") {
      const char* usage = "split AXIS FACTOR [guard|pad|shift] -> OUTER INNER";
      if (!arity(d, 2, 3, 2, 2, usage) || !axis_exists(s, d.args[0]) || !positive_int(d.args[1], "the split factor")) return;
      if (d.args.size() == 3 && !tail_policy(d.args[2])) return;
      if (!new_axes(s, d.outs)) return;
      size_t i = pos(s, d.args[0].text);
      axes[i] = d.outs[1].text;
      axes.insert(axes.begin() + static_cast<long>(i), d.outs[0].text);
    } else if (d.name == "fuse") {
      if (!arity(d, 2, 2, 1, 1, "fuse OUTER INNER -> FUSED") || !axis_exists(s, d.args[0]) || !axis_exists(s, d.args[1])) return;
      size_t a = pos(s, d.args[0].text), b = pos(s, d.args[1].text);
      if (b != a + 1) {
        error(d.loc, fmt::format("`fuse {} {}` needs `{}` directly outside `{}`", d.args[0].text, d.args[1].text,
                                 d.args[0].text, d.args[1].text),
              fmt::format("the axes of `{}` are now {}; reorder them first", s, quoted_list(axes)));
        return;
      }
      if (!new_axes(s, d.outs)) return;
      axes[a] = d.outs[0].text;
      axes.erase(axes.begin() + static_cast<long>(b));
    } else if (d.name == "reorder") {
      if (d.args.size() < 2 || !d.outs.empty()) {
        error(d.loc, "`reorder` lists two or more axes, outermost first", "write `reorder ko m n ki`");
        return;
      }
      std::vector<size_t> slots;
      std::set<std::string> names;
      for (const auto& a : d.args) {
        if (!axis_exists(s, a)) return;
        if (!names.insert(a.text).second) {
          error(a.loc, fmt::format("`{}` appears twice in `reorder`", a.text), "list each axis once, outermost first");
          return;
        }
        slots.push_back(pos(s, a.text));
      }
      std::sort(slots.begin(), slots.end());
      for (size_t i = 0; i < slots.size(); ++i) axes[slots[i]] = d.args[i].text;
    } else if (d.name == "tile") {
      const char* usage = "tile X Y FX FY [guard|pad|shift] -> XO YO XI YI";
      if (!arity(d, 4, 5, 4, 4, usage) || !axis_exists(s, d.args[0]) || !axis_exists(s, d.args[1]) ||
          !positive_int(d.args[2], "a tile size") || !positive_int(d.args[3], "a tile size"))
        return;
      if (d.args[0].text == d.args[1].text) {
        error(d.args[1].loc, "`tile` needs two different axes", usage);
        return;
      }
      if (d.args.size() == 5 && !tail_policy(d.args[4])) return;
      if (!new_axes(s, d.outs)) return;
      size_t a = pos(s, d.args[0].text), b = pos(s, d.args[1].text);
      size_t at = std::min(a, b);
      axes.erase(axes.begin() + static_cast<long>(std::max(a, b)));
      axes.erase(axes.begin() + static_cast<long>(at));
      std::vector<std::string> ins = {d.outs[0].text, d.outs[1].text, d.outs[2].text, d.outs[3].text};
      axes.insert(axes.begin() + static_cast<long>(at), ins.begin(), ins.end());
    } else if (d.name == "parallel") {
      if (!arity(d, 1, 1, 0, 0, "parallel AXIS")) return;
      axis_exists(s, d.args[0]);
    } else if (d.name == "vectorize" || d.name == "unroll") {
      std::string usage = d.name + " AXIS [WIDTH]";
      if (!arity(d, 1, 2, 0, 0, usage.c_str()) || !axis_exists(s, d.args[0])) return;
      if (d.args.size() == 2) positive_int(d.args[1], d.name == "vectorize" ? "the vector width" : "the unroll factor");
    } else if (d.name == "bind") {
      if (!arity(d, 2, 2, 0, 0, "bind AXIS block.x|block.y|block.z|thread.x|thread.y|thread.z")) return;
      if (backend_ == "cpu") {
        error(d.loc, "`bind` maps loops to GPU blocks and threads; the cpu backend has none",
              "use `parallel AXIS` on cpu, and keep `bind` for `schedule cuda` / `schedule opencl`");
        return;
      }
      if (!axis_exists(s, d.args[0])) return;
      static const std::vector<std::string> targets = {"block.x", "block.y", "block.z", "thread.x", "thread.y", "thread.z"};
      if (std::find(targets.begin(), targets.end(), d.args[1].text) == targets.end())
        error(d.args[1].loc, fmt::format("unknown bind target `{}`", d.args[1].text), "targets: " + quoted_list(targets, "or"));
    } else {
      unknown_directive(d, kL1, "schedule");
    }
  }

  bool tail_policy(const DirectiveArg& a) {
    if (a.text == "guard" || a.text == "pad" || a.text == "shift") return true;
    error(a.loc, fmt::format("unknown tail policy `{}`", a.text),
          "the tail policy is guard (skip the overhang), pad (round the loop up; the tensor is padded) or "
          "shift (move the last piece inwards)");
    return false;
  }

  void unknown_directive(const Directive& d, const std::vector<std::string>& list, const char* layer) {
    const auto& other = &list == &kL1 ? kL2 : kL1;
    if (std::find(other.begin(), other.end(), d.name) != other.end()) {
      error(d.loc, fmt::format("`{}` is a {} directive", d.name, &list == &kL1 ? "memory (L2)" : "schedule (L1)"),
            fmt::format("move it under `{} {}`", &list == &kL1 ? "memory" : "schedule", backend_));
      return;
    }
    std::string near = closest_match(d.name, list);
    error(d.loc, fmt::format("unknown {} directive `{}`", layer, d.name),
          (near.empty() ? std::string() : fmt::format("did you mean `{}`? ", near)) + "directives here: " + quoted_list(list, "or"));
  }

  // ---- L2 ----
  bool scope_ok(const DirectiveArg& a) {
    std::vector<std::string> scopes = backend_ == "cpu" ? std::vector<std::string>{"global", "local"}
                                                         : std::vector<std::string>{"global", "shared", "local"};
    if (std::find(scopes.begin(), scopes.end(), a.text) != scopes.end()) return true;
    error(a.loc, fmt::format("`{}` is not a memory scope on {}", a.text, backend_), "scopes here: " + quoted_list(scopes, "or"));
    return false;
  }

  bool stage_exists(const DirectiveArg& a) {
    if (stages_.count(a.text)) return true;
    unknown_stage(a.loc, a.text, "memory");
    return false;
  }

  bool tensor_read_by(const std::string& s, const DirectiveArg& a) {
    if (stages_[s].reads.count(a.text)) return true;
    error(a.loc, fmt::format("`{}` does not read `{}`", s, a.text),
          stages_[s].reads.empty() ? std::string("this stage reads no tensor")
                                   : "it reads " + quoted_list({stages_[s].reads.begin(), stages_[s].reads.end()}));
    return false;
  }

  bool new_stage_name(const DirectiveArg& a) {
    if (stages_.count(a.text) || p_.find_tensor(a.text) >= 0) {
      error(a.loc, fmt::format("`{}` already names a tensor or stage", a.text), "choose a fresh name");
      return false;
    }
    return true;
  }

  // Parses an optional `at AXIS` starting at args[i]; returns false on error.
  bool at_clause(const std::string& s, const Directive& d, size_t i, const char* usage) {
    if (d.args.size() == i) return true;
    if (d.args.size() != i + 2 || d.args[i].text != "at") {
      error(d.args[i].loc, fmt::format("unexpected `{}` in `{}`", d.args[i].text, d.name), fmt::format("write `{}`", usage));
      return false;
    }
    return axis_exists(s, d.args[i + 1]);
  }

  void create_stage(const DirectiveArg& name, StageAxes sa) {
    sa.created = true;
    stages_[name.text] = std::move(sa);
    auto it = pending_l1_.find(name.text);
    if (it == pending_l1_.end()) return;
    auto lines = std::move(it->second);
    pending_l1_.erase(it);
    for (const auto* line : lines) apply_l1_line(*line);
  }

  StageAxes buffer_stage(int rank) {
    StageAxes sa;
    sa.rank = rank;
    for (int i = 0; i < rank; ++i) sa.axes.push_back(fmt::format("ax{}", i));
    return sa;
  }

  int rank_of(const std::string& tensor) {
    int t = p_.find_tensor(tensor);
    if (t >= 0) return static_cast<int>(p_.tensors[t].shape.size());
    auto it = stages_.find(tensor);
    return it == stages_.end() ? 0 : it->second.rank;
  }

  void apply_l2(const std::string& s, const Directive& d) {
    if (std::find(kL1.begin(), kL1.end(), d.name) != kL1.end()) {
      error(d.loc, fmt::format("`{}` is a schedule (L1) directive", d.name), fmt::format("move it under `schedule {}`", backend_));
      return;
    }
    StageAxes& st = stages_[s];
    if (d.name == "inline") {
      if (!arity(d, 0, 0, 0, 0, "inline")) return;
      if (st.is_output) error(d.loc, fmt::format("`{}` is an output and must be stored; it cannot be inlined", s),
                              "inline the intermediate stages it reads instead");
      else if (st.created)
        error(d.loc, fmt::format("`{}` was created by a memory directive and cannot be inlined", s),
              "remove the directive that creates it instead");
    } else if (d.name == "compute_at" || d.name == "store_at") {
      std::string usage = d.name + " STAGE AXIS";
      if (!arity(d, 2, 2, 0, 0, usage.c_str()) || !stage_exists(d.args[0])) return;
      if (d.args[0].text == s) {
        error(d.args[0].loc, fmt::format("`{}` cannot be placed inside its own loops", s), "name the consumer stage");
        return;
      }
      axis_exists(d.args[0].text, d.args[1]);
    } else if (d.name == "cache_read") {
      const char* usage = "cache_read TENSOR SCOPE [at AXIS] [-> NAME]";
      if (!arity(d, 2, 4, 0, 1, usage) || !tensor_read_by(s, d.args[0]) || !scope_ok(d.args[1]) || !at_clause(s, d, 2, usage)) return;
      DirectiveArg name = d.outs.empty() ? DirectiveArg{d.args[0].text + "_" + d.args[1].text, d.loc} : d.outs[0];
      if (!new_stage_name(name)) return;
      create_stage(name, buffer_stage(rank_of(d.args[0].text)));
    } else if (d.name == "cache_write") {
      const char* usage = "cache_write SCOPE [at AXIS] [-> NAME]";
      if (!arity(d, 1, 3, 0, 1, usage) || !scope_ok(d.args[0]) || !at_clause(s, d, 1, usage)) return;
      DirectiveArg name = d.outs.empty() ? DirectiveArg{s + "_" + d.args[0].text, d.loc} : d.outs[0];
      if (!new_stage_name(name)) return;
      create_stage(name, buffer_stage(st.rank));
    } else if (d.name == "decompose_reduction") {
      if (!arity(d, 1, 1, 0, 0, "decompose_reduction AXIS") || !axis_exists(s, d.args[0])) return;
      if (!st.has_reduction)
        error(d.loc, fmt::format("`{}` has no reduction to decompose", s), "decompose_reduction applies to a stage with sum/max/min/prod");
    } else if (d.name == "rfactor") {
      if (!arity(d, 1, 1, 1, 1, "rfactor AXIS -> NAME") || !axis_exists(s, d.args[0])) return;
      if (!st.has_reduction) {
        error(d.loc, fmt::format("`{}` has no reduction to factor", s), "rfactor applies to a stage with sum/max/min/prod");
        return;
      }
      if (!new_stage_name(d.outs[0])) return;
      StageAxes f = st;
      f.rank = st.rank + 1;
      f.is_output = false;
      create_stage(d.outs[0], std::move(f));
    } else if (d.name == "pack") {
      const char* usage = "pack TENSOR DIM FACTOR [-> NAME]";
      if (!arity(d, 3, 3, 0, 1, usage) || !tensor_read_by(s, d.args[0])) return;
      int rank = rank_of(d.args[0].text);
      if (!d.args[1].is_int || d.args[1].value < 0 || d.args[1].value >= rank) {
        error(d.args[1].loc, fmt::format("`{}` has dimensions 0..{}; `{}` is not one of them", d.args[0].text, rank - 1, d.args[1].text),
              usage);
        return;
      }
      if (!positive_int(d.args[2], "the panel width")) return;
      DirectiveArg name = d.outs.empty() ? DirectiveArg{d.args[0].text + "_packed", d.loc} : d.outs[0];
      if (!new_stage_name(name)) return;
      create_stage(name, buffer_stage(rank + 1));
    } else if (d.name == "double_buffer") {
      if (!arity(d, 1, 1, 0, 0, "double_buffer CACHE")) return;
      auto it = stages_.find(d.args[0].text);
      if (it == stages_.end() || !it->second.created)
        error(d.args[0].loc, fmt::format("`{}` is not a buffer made by cache_read", d.args[0].text),
              "double-buffer a cache, e.g. `cache_read A shared at ko -> As; double_buffer As`");
    } else {
      unknown_directive(d, kL2, "memory");
    }
  }
};

}  // namespace

void check_sections(const Program& p, DiagnosticList& diags) {
  SectionChecker c(p, diags);
  c.run();
}

}  // namespace ekb

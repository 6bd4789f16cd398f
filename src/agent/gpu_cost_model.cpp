// GPU cost terms (gpu_cost_model.h). Per kernel: the launch's blocks and threads, and per thread the
// float operations, shared and global accesses and local (register) elements, from the loop IR;
// then waves x (resident blocks x a block's cycles) at the multiprocessor's rates.
#include "agent/gpu_cost_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "loops/graph.h"
#include "lower/passes.h"

namespace ekb::agent {

namespace {

using namespace lir;

constexpr double kClockGhz = 1.7;             // multiprocessor cycles per ns
constexpr double kFloatOpsPerCycle = 256;     // 128 FP32 lanes, a multiply-add each (two operations)
constexpr double kSharedWordsPerCycle = 32;   // 32 banks of 4 bytes
constexpr double kCacheBandwidthFactor = 3;   // L2 serves re-read data about this much faster than memory
constexpr double kLaunchNs = 3000;            // one kernel launch
constexpr int kThreadsPerMultiprocessor = 2048, kBlocksPerMultiprocessor = 32, kRegisters = 65536;
constexpr int kRegisterOverhead = 24;         // indices, addresses, loop counters per thread
constexpr int kMaxRegisters = 255;            // per thread; beyond it values spill to memory
constexpr double kWarpsToHideLatency = 8;     // resident warps per multiprocessor below which latency shows

// One kernel's launch and per-thread work.
struct KernelWork {
  std::array<int64_t, 3> threads{1, 1, 1};
  double blocks = 1;
  double float_ops = 0, shared_words = 0, global_bytes = 0;
  int64_t local_elements = 0, shared_bytes = 0;
};

// The walk of one kernel. A load is counted once per value of the loops its index depends on: the
// compiler keeps a value loaded in an unrolled loop (or hoists one a loop does not change) in a
// register, so a register tile's operand is loaded once per row or column, not once per product.
class GpuWalk {
 public:
  explicit GpuWalk(KernelWork& w) : w_(w) {}

  void stmt(const StmtP& s) {
    if (!s) return;
    switch (s->kind) {
      case SK::block:
        for (const auto& b : s->body) stmt(b);
        return;
      case SK::for_: {
        int64_t e = 1;
        if (!is_const(s->extent, &e)) e = 1;  // (a data-dependent extent: counted once)
        e = std::max<int64_t>(e, 0);
        if (s->loop == LoopKind::gpu_block) {
          w_.blocks *= static_cast<double>(std::max<int64_t>(e, 1));
          stmt(s->body[0]);
        } else if (s->loop == LoopKind::gpu_thread) {
          auto& n = w_.threads[static_cast<size_t>(std::clamp(s->gpu_axis, 0, 2))];
          n = std::max(n, e);
          stmt(s->body[0]);
        } else {
          loops_.push_back({s->var, static_cast<double>(e)});
          seen_.emplace_back();
          stmt(s->body[0]);
          seen_.pop_back();
          loops_.pop_back();
        }
        return;
      }
      case SK::allocate: {
        int64_t n = 1;
        for (int64_t e : s->alloc.extents) n *= e;
        scope_[s->alloc.name] = s->alloc.scope;
        if (s->alloc.scope == MemScope::shared) w_.shared_bytes += n * dtype_bytes(s->alloc.type);
        else if (s->alloc.scope == MemScope::local) w_.local_elements += n;
        stmt(s->body[0]);
        return;
      }
      case SK::let:
        expr(s->value);
        values_.push_back({s->var, lower::substitute(s->value, values_)});
        stmt(s->body[0]);
        values_.pop_back();
        return;
      case SK::if_:
        expr(s->value);
        for (const auto& b : s->body) stmt(b);
        return;
      case SK::store:
        expr(s->value);
        access(s->buffer, s->value ? s->value->type : DType::f32, times(loop_vars(in_loops(s->indices))));
        return;
      case SK::thread_reduce:
        w_.shared_words += times({}) * 2 * std::log2(std::max<double>(2, static_cast<double>(w_.threads[0])));
        return;
      case SK::comment:
      case SK::barrier:
        return;
    }
  }

 private:
  struct Loop {
    std::string var;
    double extent;
  };
  KernelWork& w_;
  std::map<std::string, MemScope> scope_;
  std::vector<Loop> loops_;                            // serial and unrolled loops around the point
  std::vector<std::pair<std::string, ExprP>> values_;  // the lets' values, in terms of the loops
  std::vector<std::set<std::string>> seen_{1};         // per loop level: the loads already counted there

  // Indices with the lets replaced by their values: in terms of the loops and what is bound outside.
  std::vector<ExprP> in_loops(const std::vector<ExprP>& idx) const {
    std::vector<ExprP> out;
    for (const auto& i : idx) out.push_back(lower::substitute(i, values_));
    return out;
  }

  // Whether this load (buffer and indices in terms of the loops) was counted in the current
  // iteration of the loops around it: unrolled copies of a body load the same value once.
  bool counted(const std::string& buffer, const std::vector<ExprP>& idx) {
    std::string key = buffer;
    for (const auto& i : idx) key += "|" + lir::to_string(i);
    for (const auto& level : seen_)
      if (level.count(key)) return true;
    seen_.back().insert(key);
    return false;
  }

  // Executions of a statement (`d` null) or of a load depending on loop variables `d`.
  double times(const std::optional<std::set<std::string>>& d) const {
    double n = 1;
    for (const auto& l : loops_)
      if (!d || d->count(l.var)) n *= l.extent;
    return n;
  }

  // The variables the indices mention (the loops among them decide how often they change).
  static std::set<std::string> loop_vars(const std::vector<ExprP>& idx) {
    std::set<std::string> out;
    std::function<void(const ExprP&)> walk = [&](const ExprP& e) {
      if (!e) return;
      if (e->kind == EK::var) out.insert(e->name);
      for (const auto& a : e->args) walk(a);
    };
    for (const auto& i : idx) walk(i);
    return out;
  }

  MemScope scope_of(const std::string& buffer) const {
    auto it = scope_.find(buffer);
    return it == scope_.end() ? MemScope::global : it->second;
  }

  void access(const std::string& buffer, DType type, double n) {
    MemScope sc = scope_of(buffer);
    if (sc == MemScope::shared) w_.shared_words += n;
    else if (sc == MemScope::global) w_.global_bytes += n * dtype_bytes(type);
  }

  void expr(const ExprP& e) {
    if (!e) return;
    for (const auto& a : e->args) expr(a);
    if (e->kind == EK::load) {
      if (scope_of(e->name) == MemScope::local) return;
      std::vector<ExprP> idx = in_loops(e->args);
      if (!counted(e->name, idx)) access(e->name, e->type, times(loop_vars(idx)));
    } else if (is_float(e->type) && (e->kind == EK::binary || e->kind == EK::unary || e->kind == EK::call)) {
      w_.float_ops += times(std::nullopt) * (e->kind == EK::call ? 8 : 1);
    }
  }
};

}  // namespace

CostTerms gpu_cost_terms(const lower::LoweredKernel& k, const Target& t) {
  CostTerms c;
  double global_bytes = 0;
  for (const auto& nest : lower::gpu_kernel_nests(k.body)) {
    KernelWork w;
    GpuWalk(w).stmt(nest);
    double threads = static_cast<double>(w.threads[0] * w.threads[1] * w.threads[2]);
    int64_t registers = std::min<int64_t>(w.local_elements + kRegisterOverhead, kMaxRegisters);
    double resident = std::min<double>({std::floor(kThreadsPerMultiprocessor / threads), kBlocksPerMultiprocessor,
                                        std::floor(kRegisters / (threads * static_cast<double>(registers)))});
    if (w.shared_bytes > 0)
      resident = std::min(resident, std::floor(static_cast<double>(t.shared_memory_per_multiprocessor) / static_cast<double>(w.shared_bytes)));
    resident = std::max(resident, 1.0);
    double waves = std::ceil(w.blocks / (resident * t.multiprocessors));
    // A block's cycles on its multiprocessor: arithmetic and shared memory in parallel, the slower
    // one showing; the blocks resident together share the multiprocessor, so a wave takes as many
    // block times as a multiprocessor holds blocks in it.
    double block_cycles = std::max(threads * w.float_ops / kFloatOpsPerCycle, threads * w.shared_words / kSharedWordsPerCycle);
    double per_multiprocessor = std::min(resident, std::ceil(w.blocks / t.multiprocessors));  // in a wave
    double wave_cycles = per_multiprocessor * block_cycles;
    double warps = per_multiprocessor * threads / t.warp_size;
    double exposed = warps < kWarpsToHideLatency ? kWarpsToHideLatency / warps : 1;
    if (w.local_elements + kRegisterOverhead > kMaxRegisters) exposed *= 2;  // spilled registers go through memory
    c.compute += waves * wave_cycles / kClockGhz;
    c.latency += waves * wave_cycles * (exposed - 1) / kClockGhz;
    c.parallel += kLaunchNs;
    global_bytes += w.blocks * threads * w.global_bytes;
  }
  // Inputs and outputs once from memory; everything else read again from the caches.
  double compulsory = std::min(global_bytes, compulsory_bytes(k));
  c.memory = compulsory / t.bandwidth_gbs + (global_bytes - compulsory) / (t.bandwidth_gbs * kCacheBandwidthFactor);
  return c;
}

}  // namespace ekb::agent

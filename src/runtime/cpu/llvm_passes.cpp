// The LLVM passes the in-process compile runs on the module clang made from ekb's C.
//
// Why ekb has its own list rather than clang's -O3: the C that ekb prints is already vectorized
// and unrolled where its schedule says (explicit GNU vector types sized to the ISA), and it is
// simple C (a few functions, no switches, no recursion, no globals to speak of), so a good part of
// -O3's work buys nothing, and some of it costs run time. Measured on every suite task's default
// schedule against clang's -O3 (bench/compile_latency/pass_pipeline_bench, bench/results/pass_pipeline.md):
//   - the SLP vectorizer turned the lane-by-lane loads of strided vector accesses into AVX-512
//     gather instructions, which made layernorm, GRU cells, attention or a GEMV 1.4-2.0x slower on Zen 5;
//     without it the kernels are as fast or faster (geomean 1.1x) and it cost 11% of the passes;
//   - runtime (remainder-loop) unrolling of loops the schedule left rolled roughly doubled the code
//     the back end compiles, for no measured gain; full and partial unrolling of constant loops stay;
//   - passes that serve general C but not this C (loop unswitching, loop idioms and distribution,
//     induction variable rewriting, speculative execution, switch lowering, coroutines, OpenMP's
//     own optimizer, attribute and argument rewriting) and two of -O3's eight instcombine runs are
//     left out. What stays was kept because a measurement asked for it: without jump threading a
//     hand-written depthwise schedule ran 2.7x slower, without reassociation a strided 1-D
//     convolution 10% (pass_pipeline_bench --file: the schedules of bench/ and the search's programs).
// With a prelude that holds only what the kernel calls (codegen/c_prelude.h) and the post-RA
// scheduler off on x86 (clang_frontend.h), a suite compile takes about two thirds of the time it took
// with clang's -O3 (bench/results/compile_latency.md).
#include "runtime/cpu/llvm_passes.h"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>

#include "runtime/cpu/c_compiler.h"

namespace ekb {

namespace {

// Pass spellings with their options as LLVM 19's -O3 pipeline has them (opt -print-pipeline-passes).
constexpr const char* kInstCombine = "instcombine<max-iterations=1;no-use-loop-info;no-verify-fixpoint>";
constexpr const char* kSimplifyCfg =  // keeps loops in canonical form
    "simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;switch-range-to-icmp;no-switch-to-lookup;keep-loops;"
    "no-hoist-common-insts;no-sink-common-insts;speculate-blocks;simplify-cond-branch;no-speculate-unpredictables>";
constexpr const char* kSimplifyCfgLate =  // after vectorization: may merge loops' blocks, hoist and sink
    "simplifycfg<bonus-inst-threshold=1;forward-switch-cond;switch-range-to-icmp;switch-to-lookup;no-keep-loops;"
    "hoist-common-insts;sink-common-insts;speculate-blocks;simplify-cond-branch;no-speculate-unpredictables>";
constexpr const char* kRotate = "loop-rotate<header-duplication;no-prepare-for-lto>";
constexpr const char* kLicm = "licm<allowspeculation>";

std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : ",") + p;
  return s;
}

}  // namespace

const std::string& ekb_pass_pipeline() {
  static const std::string text = [] {
    std::string ic = kInstCombine, cfg = kSimplifyCfg, rotate = kRotate, licm = kLicm;
    // 1. Each function alone: values out of memory (the C's locals and vector temporaries), first cleanup.
    std::string early = "function<eager-inv>(" + join({"lower-expect", cfg, "sroa<modify-cfg>", "early-cse<>"}) + ")";
    // 2. Constants across functions; the helpers inlined into the kernel and its OpenMP bodies, each
    //    function simplified as it is inlined into: the chains of bound checks of padded or clamped
    //    reads threaded (without jump threading a hand-written depthwise schedule ran 2.7x slower),
    //    index arithmetic reassociated, loops rotated, invariants hoisted, small constant loops (a
    //    3x3 window, a vector's lanes) fully unrolled, redundant loads and stores removed.
    std::string simplify = join({"sroa<modify-cfg>", "early-cse<memssa>", "jump-threading", "correlated-propagation", "reassociate", cfg,
                                 "loop-mssa(" + join({"loop-instsimplify", "loop-simplifycfg", "licm<no-allowspeculation>", rotate, licm}) + ")",
                                 cfg, ic, "loop(loop-deletion,loop-unroll-full)", "sroa<modify-cfg>", "vector-combine", "gvn<>", ic,
                                 "memcpyopt", "dse", "loop-mssa(" + licm + ")", cfg, ic});
    std::string inline_and_simplify =
        "cgscc(devirt<4>(inline,function-attrs<skip-non-recursive-function-attrs>,function<eager-inv;no-rerun>(" + simplify + ")))";
    // 3. Loops the schedule left scalar vectorized by LLVM's loop vectorizer (its cost model picks the
    //    width), constant loops unrolled (no runtime remainder loops), and a last cleanup.
    std::string late = "function<eager-inv>(" +
                       join({"loop(" + rotate + ",loop-deletion)", "loop-vectorize<no-interleave-forced-only;no-vectorize-forced-only;>",
                             "infer-alignment", kSimplifyCfgLate, "vector-combine", ic, "loop-unroll<O3;no-runtime>",
                             "sroa<preserve-cfg>", "infer-alignment", ic, "loop-mssa(" + licm + ")", "instsimplify", cfg}) +
                       ")";
    return join({early, "ipsccp", "globalopt", "function<eager-inv>(" + ic + "," + cfg + ")", "always-inline", inline_and_simplify,
                 "globaldce", late, "globaldce"});
  }();
  return text;
}

void run_llvm_passes(llvm::Module& m, llvm::TargetMachine& tm, const std::string& pipeline) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;  // (what the pipeline's own pass options do not say: as clang -O3)
  pto.LoopUnrolling = pto.LoopInterleaving = pto.LoopVectorization = pto.SLPVectorization = true;
  llvm::PassBuilder pb(&tm, pto);
  llvm::TargetLibraryInfoImpl tlii(llvm::Triple(m.getTargetTriple()));
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  if (llvm::Error e = pb.parsePassPipeline(mpm, pipeline))
    throw CompileError("the LLVM pass pipeline does not parse", llvm::toString(std::move(e)));
  mpm.run(m, mam);
}

}  // namespace ekb

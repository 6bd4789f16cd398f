// Building candidates (eval/candidate.h): the compute layer is open — a candidate's own L0 runs as
// long as its interface is the task's — interface differences are `mismatch` naming what differs,
// the task's input distributions replace the candidate's, and parameters keep the task's order.
#include <gtest/gtest.h>

#include "rowscale_task.h"

#include "eval/candidate.h"
#include "ir/check.h"

namespace ekb {
namespace {

const char* kTaskText = test::kRowscaleText;
Task task() { return test::rowscale_task(); }

std::string with(const std::string& from, const std::string& to) {
  std::string s = kTaskText;
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(Candidate, ARewrittenComputeLayerWithTheSameInterfaceIsAccepted) {
  Task t = task();
  // The division becomes a multiplication by a reciprocal stage: different L0, same interface.
  std::string text = with("  Y[r, c] = X[r, c] * W[c] / S[r]\n", "  Q[r] = 1.0 / S[r]\n  Y[r, c] = X[r, c] * W[c] * Q[r]\n");
  auto p = load_candidate_program(t, "cand.ekb", text);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->stages.size(), 3u);
  Submission s{"rowscale", "cand.ekb", SourceKind::ekb, 0, text};
  CandidateSource c = build_candidate(t, s, default_target(Backend::cpu));
  EXPECT_NE(c.source.find("ekb_kernel"), std::string::npos);
}

TEST(Candidate, InterfaceDifferencesAreMismatchesNamingWhatDiffers) {
  Task t = task();
  struct Case {
    std::string text, needle;
  } cases[] = {
      {with("in W : f32[C]", "in W : f16[C]"), "input `W` is f16 in the candidate but f32"},
      {with("dim R = 8, C = 32", "dim R = 8, C = 16"), "input `X` has shape [8, 16] in the candidate but [8, 32]"},
      {with("out Y : f32[R, C]\n", "out Y : f32[R, C]\n  out Z : f32[R]\n") + "  Z[r] = S[r]\n",
       "the candidate declares output `Z`, which task `rowscale` does not have"},
      {with("  in W : f32[C] ~ positive(0.5, 2)\n", "") , "task `rowscale` has input `W`"},
  };
  for (const auto& c : cases) {
    // (The last case's Y reads W, which it no longer declares: that is a compile error, not a mismatch.)
    try {
      load_candidate_program(t, "cand.ekb", c.text);
      ADD_FAILURE() << "accepted:\n" << c.text;
    } catch (const CandidateRejected& r) {
      if (c.needle.starts_with("task `rowscale` has input")) {
        EXPECT_EQ(r.outcome, Outcome::compile) << r.what();
        continue;
      }
      EXPECT_EQ(r.outcome, Outcome::mismatch) << r.what();
      EXPECT_NE(std::string(r.what()).find(c.needle), std::string::npos) << r.what();
    }
  }
}

TEST(Candidate, InputsTakeTheTasksDistributions) {
  const char* task_text = R"(kernel gather
  category data_movement
  domain general
  dim N = 8, V = 10, D = 4
  in T : f32[V, D]
  in I : i32[N] ~ int(0, 9)
  out Y : f32[N, D]
  Y[n, d] = T[I[n], d]
)";
  Task t;
  t.name = "gather";
  t.program = load_program(std::make_shared<SourceFile>("gather.ekb", task_text));
  // A candidate that declares a narrower index range runs on the task's inputs: it is checked with
  // the task's distribution, which its program then carries.
  std::string narrowed = task_text;
  narrowed.replace(narrowed.find("int(0, 9)"), 9, "int(0, 4)");
  auto p = load_candidate_program(t, "narrowed.ekb", narrowed);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->tensors[p->find_tensor("I")].dist.text(), "int(0, 9)");
  // Its reads proven in range for its own declaration only (I + 5 < 10 needs I <= 4) are an error.
  std::string shifted = narrowed;
  shifted.replace(shifted.find("T[I[n], d]"), 10, "T[I[n] + 5, d]");
  try {
    load_candidate_program(t, "shifted.ekb", shifted);
    ADD_FAILURE() << "accepted a read beyond the table for the task's indices";
  } catch (const CandidateRejected& r) {
    EXPECT_EQ(r.outcome, Outcome::compile);
    EXPECT_NE(std::string(r.what()).find("with the task's input distributions"), std::string::npos) << r.what();
  }
}

TEST(Candidate, ARawSourceForAnotherBackendIsAMismatch) {
  Task t = task();
  Submission s{"rowscale", "rowscale.cu", SourceKind::cu, 0, "// @launch ekb_k0 grid(1) block(1)\n"};
  try {
    build_candidate(t, s, default_target(Backend::cpu));
    ADD_FAILURE();
  } catch (const CandidateRejected& r) {
    EXPECT_EQ(r.outcome, Outcome::mismatch);
    EXPECT_NE(std::string(r.what()).find("cannot run on the cpu backend"), std::string::npos) << r.what();
  }
}

TEST(Candidate, ParametersKeepTheTasksOrderWhateverTheCandidateDeclares) {
  Task t = task();
  std::string text = with("  in X : f32[R, C]\n  in W : f32[C] ~ positive(0.5, 2)\n", "  in W : f32[C] ~ positive(0.5, 2)\n  in X : f32[R, C]\n");
  Submission s{"rowscale", "cand.ekb", SourceKind::ekb, 0, text};
  CandidateSource c = build_candidate(t, s, default_target(Backend::cpu));
  size_t sig = c.source.find("void ekb_kernel(");
  ASSERT_NE(sig, std::string::npos);
  std::string line = c.source.substr(sig, c.source.find('\n', sig) - sig);
  EXPECT_LT(line.find("X"), line.find("W")) << line;
}

}  // namespace
}  // namespace ekb

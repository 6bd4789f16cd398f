// A results store filled through ResultsStore's API with the kinds of runs `ekb report` and `ekb
// leaderboard` show, on the fixture suite's tasks (tests/fixtures/suite_small), with the keys and
// environments the commands write: an `ekb eval --defaults` run, an `ekb agent` search with its steps
// and the eval run that re-scores its output, an `ekb generate` run (raw C from a model) with its
// replies and the eval run that scores its samples (one correct, one that does not compile, one
// whose file changed since), a quick OpenCL run on PoCL, and an unfinished LLM agent run. The figures
// are made up; the shapes are real.
#pragma once
#include <filesystem>
#include <fstream>
#include <string>

#include "agent/prompts/reply_code.h"
#include "harness/results_store.h"
#include "suite/suite.h"
#include "suite/task_hash.h"
#include "util/text_hash.h"

namespace ekb::test {

struct SyntheticRuns {
  int64_t defaults = 0, agent = 0, rescore = 0, generation = 0, generation_eval = 0, quick_gpu = 0, llm_agent = 0;
  std::string changed_code;  // the code the changed file's attempt was made on
  std::string file_code;     // a sample's code read from its file (it has `<` and `&` in it)
};

inline AttemptRecord synthetic_attempt(const Suite& suite, const std::string& task, int sample, Outcome outcome, double speedup,
                                       double lo, double hi, bool noisy = false, uint64_t memory = 64 << 10) {
  AttemptRecord a;
  a.task = task;
  a.sample = sample;
  const Task* t = suite.find(task);
  a.suite_version = suite.version();
  a.task_hash = t ? task_hash(*t->program) : "";
  a.eval.outcome = outcome;
  if (outcome == Outcome::ok) {
    a.eval.speedup = speedup;
    a.eval.speedup_lo = lo;
    a.eval.speedup_hi = hi;
    a.eval.noisy = noisy;
    a.eval.candidate = summarize_times({0.010 / speedup, 0.011 / speedup, 0.0105 / speedup});
    a.eval.baseline = summarize_times({0.010, 0.011, 0.0105});
    a.eval.candidate_memory = memory;
  } else {
    a.eval.message = outcome == Outcome::compile ? "t.c:3:5: error: use of undeclared identifier 'n_'" : "output Y differs from the reference";
  }
  return a;
}

inline nlohmann::json synthetic_env(const std::string& device, int threads, uint64_t budget, const std::string& timing) {
  return {{"cpu", "AMD EPYC 9B45 (synthetic)"}, {"cores", 2}, {"host", "ci"}, {"ekb_commit", "abc1234"},
          {"target", "x86-64 avx512 (16 f32 lanes), 2 threads"}, {"compiler", "clang 19.1 (in process)"}, {"isa", "avx512"},
          {"device", {{"name", device}, {"threads", threads}, {"memory_budget", budget}}}, {"peak_gflops", 900.0}, {"peak_gbps", 60.0},
          {"timing", timing}};
}

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

inline SyntheticRuns fill_synthetic_store(ResultsStore& s, const Suite& suite, const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  SyntheticRuns r;
  const uint64_t gib4 = 4ull << 30;

  // `ekb eval --defaults`: every fixture task's own text.
  nlohmann::json key = {{"command", "eval"}, {"dir", "(defaults)"}, {"backend", "cpu"}, {"device", "host"}, {"tasks", ""}};
  RunInfo run = s.open_run(key.dump(), "cpu", "host", synthetic_env("host", 2, gib4, "cold"));
  r.defaults = run.id;
  for (const auto& t : suite.tasks()) {
    AttemptRecord a = synthetic_attempt(suite, t.name, 0, Outcome::ok, 1.0, 0.97, 1.03, t.name == "conv1d_k3_b");
    a.candidate_path = t.file.string() + ":" + t.name;
    a.candidate_hash = text_hash_hex(t.text);
    s.add_attempt(run.id, a);
  }
  s.finish_run(run.id);

  // `ekb agent` (search) on two tasks, its steps, and `ekb eval` of the directory it wrote.
  fs::path out = dir / "agent_out";
  key = {{"command", "agent"}, {"policy", "search"}, {"device", "host"}, {"budget", 4}, {"out", out.string()},
         {"tasks", {"relu_256", "scale_128"}}};
  nlohmann::json env = synthetic_env("host", 2, gib4, "cold");
  env["agent"] = {{"policy", "search"}, {"budget", 4}, {"time_limit_s", 60}};
  run = s.open_run(key.dump(), "cpu", "host", env);
  r.agent = run.id;
  std::vector<AttemptRecord> best;
  for (const char* task : {"relu_256", "scale_128"}) {
    const Task& t = *suite.find(task);
    struct S {
      const char* layer;
      const char* action;
      const char* section;
      double speedup;
      bool accepted;
      Outcome outcome;
    };
    std::vector<S> steps = {{"L1", "start", "", 1.0, true, Outcome::ok},
                            {"L1", "parallel i", "schedule cpu\n  Y: parallel i\n", 0.6, false, Outcome::ok},
                            {"L1", "vectorize i 16", "schedule cpu\n  Y: vectorize i 16\n", 2.4, true, Outcome::ok},
                            {"L2", "cache_write local at i", "schedule cpu\n  Y: vectorize i 16\nmemory cpu\n  Y: cache_write local\n", 0,
                             false, Outcome::compile},
                            {"L1", "confirm: best", "schedule cpu\n  Y: vectorize i 16\n", 2.3, true, Outcome::ok}};
    AttemptRecord kept;
    for (size_t i = 0; i < steps.size(); ++i) {
      StepRecord st;
      st.task = task;
      st.step = static_cast<int>(i);
      st.layer = steps[i].layer;
      st.action = steps[i].action;
      st.program = t.text + (steps[i].section[0] ? std::string("\n") + steps[i].section : "");
      st.program_hash = text_hash_hex(st.program);
      st.task_hash = task_hash(*t.program);
      st.predicted_ms = 0.004;
      st.accepted = steps[i].accepted;
      AttemptRecord m = synthetic_attempt(suite, task, 0, steps[i].outcome, steps[i].speedup, steps[i].speedup * 0.95,
                                          steps[i].speedup * 1.05);
      st.eval = m.eval;
      s.put_step(run.id, st);
      if (st.accepted) {
        kept = m;
        kept.candidate_path = (out / (std::string(task) + ".ekb")).string();
        kept.candidate_hash = st.program_hash;
      }
    }
    s.add_attempt(run.id, kept);
    best.push_back(kept);
  }
  s.finish_run(run.id);
  key = {{"command", "eval"}, {"dir", out.string()}, {"backend", "cpu"}, {"device", "host"}, {"tasks", ""}};
  run = s.open_run(key.dump(), "cpu", "host", synthetic_env("host", 2, gib4, "cold"));
  r.rescore = run.id;
  for (auto a : best) {
    a.eval.speedup *= 0.98;
    s.add_attempt(run.id, a);
  }
  s.finish_run(run.id);

  // `ekb generate --mode raw` (two samples of scale_64), and `ekb eval` of its directory.
  fs::path gen = dir / "gen_out";
  key = {{"command", "generate"}, {"mode", "raw"}, {"backend", "cpu"}, {"device", "host"}, {"model", "tiny-coder-7b"},
         {"endpoint", "http://127.0.0.1:9/v1"}, {"prompt_version", "1"}, {"samples", 2}, {"out", gen.string()},
         {"tasks", {"scale_64", "relu_256"}}};
  env = {{"mode", "raw"}, {"llm", {{"model", "tiny-coder-7b"}, {"endpoint", "http://127.0.0.1:9/v1"}}}, {"out", gen.string()}};
  run = s.open_run(key.dump(), "cpu", "host", env);
  r.generation = run.id;
  const std::string reply =
      "Here is the kernel:\n```c\n#include <stdint.h>\nvoid ekb_kernel(const float* restrict X, float* restrict Y, int32_t n) {\n"
      "  for (int i = 0; i < 64; ++i) Y[i] = 2.0f * X[i];\n}\n```\n";
  // What `ekb generate` writes to the sample's file: the reply's code (agent/generate.cpp).
  const std::string reply_code = agent::extract_code(reply, agent::code_language(agent::CodeMode::raw, Backend::cpu)).code;
  r.file_code = "#include <stdint.h>\n// a < b && c > d: kept as text\nvoid ekb_kernel(const float* X, float* Y, int32_t n) { n_ = 0; }\n";
  r.changed_code = "void ekb_kernel(void) {}\n";
  LlmRequestRecord q;
  q.task = "scale_64";
  q.sample = 0;
  q.model = "tiny-coder-7b";
  q.reply = reply;
  q.code_status = "ok";
  q.file = (gen / "scale_64.s0.c").string();
  q.file_hash = text_hash_hex(reply_code);
  q.prompt_tokens = 900;
  q.completion_tokens = 120;
  s.put_llm_request(run.id, q);
  s.finish_run(run.id);
  write_text(gen / "scale_64.s1.c", r.file_code);
  write_text(gen / "relu_256.s0.c", "void ekb_kernel(void) { /* edited after the attempt */ }\n");
  key = {{"command", "eval"}, {"dir", gen.string()}, {"backend", "cpu"}, {"device", "host"}, {"tasks", ""}};
  run = s.open_run(key.dump(), "cpu", "host", synthetic_env("host", 2, gib4, "cold"));
  r.generation_eval = run.id;
  AttemptRecord a = synthetic_attempt(suite, "scale_64", 0, Outcome::ok, 0.8, 0.7, 0.9);
  a.candidate_path = (gen / "scale_64.s0.c").string();  // not written: its code is the reply's
  a.candidate_hash = text_hash_hex(reply_code);
  s.add_attempt(run.id, a);
  a = synthetic_attempt(suite, "scale_64", 1, Outcome::compile, 0, 0, 0);
  a.candidate_path = (gen / "scale_64.s1.c").string();
  a.candidate_hash = text_hash_hex(r.file_code);
  s.add_attempt(run.id, a);
  a = synthetic_attempt(suite, "relu_256", 0, Outcome::wrong, 0, 0, 0);
  a.candidate_path = (gen / "relu_256.s0.c").string();
  a.candidate_hash = text_hash_hex(r.changed_code);
  s.add_attempt(run.id, a);
  s.finish_run(run.id);

  // `ekb eval --defaults --quick` on OpenCL (PoCL on the CPU).
  key = {{"command", "eval"}, {"dir", "(defaults)"}, {"backend", "opencl"}, {"device", "pocl-cpu"}, {"tasks", "conv*"}, {"quick", true}};
  env = {{"cpu", "AMD EPYC 9B45 (synthetic)"}, {"cores", 2}, {"ekb_commit", "abc1234"}, {"compiler", "PoCL 3.1"},
         {"gpu", {{"name", "cpu-x86-64-AMD EPYC (PoCL)"}, {"platform", "Portable Computing Language"}}},
         {"device", {{"name", "pocl-cpu"}, {"threads", 0}, {"memory_budget", 1ull << 30}}}, {"timing", "cold"}, {"quick", true}};
  run = s.open_run(key.dump(), "opencl", "pocl-cpu", env);
  r.quick_gpu = run.id;
  for (const char* task : {"conv1d_k3_a", "conv1d_k3_b", "conv1d_k3_c"}) {
    const Task& t = *suite.find(task);
    AttemptRecord q2 = synthetic_attempt(suite, task, 0, Outcome::ok, 3.0, 1.5, 6.0, true, 0);
    q2.candidate_path = t.file.string() + ":" + t.name;
    q2.candidate_hash = text_hash_hex(t.text);
    s.add_attempt(run.id, q2);
  }
  s.finish_run(run.id);

  // `ekb agent --policy llm` (ir), stopped by its token budget: unfinished.
  key = {{"command", "agent"}, {"policy", "llm"}, {"mode", "ir"}, {"model", "tiny-coder-7b"}, {"device", "edge-cpu"},
         {"out", (dir / "llm_out").string()}, {"tasks", {"mlp2_small"}}};
  env = synthetic_env("edge-cpu", 2, 512ull << 20, "warm");
  env["llm"] = {{"model", "tiny-coder-7b"}};
  env["mode"] = "ir";
  run = s.open_run(key.dump(), "cpu", "edge-cpu", env);
  r.llm_agent = run.id;
  const Task& mlp = *suite.find("mlp2_small");
  for (int i = 0; i < 4; ++i) {
    StepRecord st;
    st.task = "mlp2_small";
    st.step = i;
    st.layer = i == 0 ? "L1" : i == 1 ? "L0" : i == 2 ? "L1" : "L2";
    st.action = i == 0 ? "start" : "model turn " + std::to_string(i);
    st.program = mlp.text + (i ? "\n# turn " + std::to_string(i) + "\n" : "");
    st.program_hash = text_hash_hex(st.program);
    st.task_hash = task_hash(*mlp.program);
    st.accepted = i != 2;
    st.eval = synthetic_attempt(suite, "mlp2_small", 0, i == 2 ? Outcome::wrong : Outcome::ok, 1.0 + 0.3 * i, 0.9 + 0.3 * i, 1.1 + 0.3 * i).eval;
    s.put_step(run.id, st);
    if (i == 3) {
      AttemptRecord b = synthetic_attempt(suite, "mlp2_small", 0, Outcome::ok, 1.9, 1.8, 2.0, false, 3 << 20);
      b.candidate_path = (dir / "llm_out" / "mlp2_small.ekb").string();
      b.candidate_hash = st.program_hash;
      s.add_attempt(run.id, b);
    }
  }
  return r;
}

}  // namespace ekb::test

// Runs as the report and the leaderboard show them (run_summary.h).
#include "report/run_summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "agent/compare.h"
#include "eval/report.h"

namespace ekb::report {

namespace {

nlohmann::json key_of(const RunInfo& run) {
  auto k = nlohmann::json::parse(run.key, nullptr, false);
  return k.is_object() ? k : nlohmann::json::object();
}

std::string normalized(const std::string& dir) { return std::filesystem::path(dir).lexically_normal().string(); }

// The directory whose submissions a run scored (an eval run's DIR, the main job's re-score of its
// search's output), or "".
std::string scored_dir(const nlohmann::json& key) {
  RunCommand c = run_command(key);
  if (c == RunCommand::eval && key.value("dir", "") != "(defaults)") return key.value("dir", "");
  if (c == RunCommand::main_job && key.value("phase", "") == "re-score") return key.value("out", "");
  return "";
}

// A run that writes submissions into a directory (its key's "out"): an agent, a generation, the main job's search.
bool writes_submissions(const nlohmann::json& key) {
  RunCommand c = run_command(key);
  return c == RunCommand::agent || c == RunCommand::generate || (c == RunCommand::main_job && key.value("phase", "") != "re-score");
}

std::string env_string(const nlohmann::json& env, const char* name) {
  auto it = env.find(name);
  return it != env.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string fmt_mib(uint64_t bytes) { return fmt::format("{:.1f} MiB", bytes / 1048576.0); }

}  // namespace

RunCommand run_command(const nlohmann::json& key) {
  std::string c = key.is_object() ? key.value("command", "") : "";
  if (c == "eval") return RunCommand::eval;
  if (c == "agent") return RunCommand::agent;
  if (c == "generate") return RunCommand::generate;
  if (c == "run") return RunCommand::main_job;
  return RunCommand::other;
}

TaskPlace task_place(const Suite* suite, const std::string& task) {
  const Task* t = suite ? suite->find(task) : nullptr;
  if (!t) return {"(not in the suite)", "(not in the suite)"};
  return {t->category, t->domain};
}

std::vector<GroupMetrics> metrics_by(const std::vector<AttemptRecord>& attempts,
                                     const std::function<std::string(const std::string& task)>& group_of) {
  std::map<std::string, std::vector<AttemptRecord>> groups;
  for (const auto& a : attempts) groups[group_of(a.task)].push_back(a);
  std::vector<GroupMetrics> out;
  for (const auto& [name, as] : groups) out.push_back({name, compute_metrics(outcomes_of(as))});
  return out;
}

RunDescription describe_run(const RunInfo& run, const std::vector<RunInfo>& all_runs) {
  RunDescription d;
  nlohmann::json key = key_of(run);
  const nlohmann::json& env = run.env.is_object() ? run.env : nlohmann::json::object();
  d.command = run_command(key);
  d.label = agent::run_label(key);
  d.model = key.value("model", "");
  if (d.model.empty() && env.contains("llm") && env["llm"].is_object()) d.model = env["llm"].value("model", "");
  if (d.command == RunCommand::generate || !d.model.empty()) d.mode = key.value("mode", "ir");
  if (std::string dir = scored_dir(key); !dir.empty()) {
    // The newest run before this one that wrote into that directory.
    for (auto it = all_runs.rbegin(); it != all_runs.rend(); ++it) {
      if (it->id >= run.id) continue;
      nlohmann::json k = key_of(*it);
      if (writes_submissions(k) && normalized(k.value("out", "")) == normalized(dir)) {
        d.scores_run = it->id;
        d.scores_label = agent::run_label(k);
        if (d.model.empty()) d.model = k.value("model", "");
        if (d.mode.empty() && run_command(k) == RunCommand::generate) d.mode = k.value("mode", "ir");
        break;
      }
    }
  }
  if (env.contains("gpu") && env["gpu"].is_object() && !env["gpu"].value("name", "").empty())
    d.hardware = env["gpu"].value("name", "");
  else if (std::string cpu = env_string(env, "cpu"); !cpu.empty())
    d.hardware = env.contains("cores") ? fmt::format("{} ({} cores)", cpu, env["cores"].dump()) : cpu;
  d.target = env_string(env, "target");
  d.compiler = env_string(env, "compiler");
  d.commit = env_string(env, "ekb_commit");
  if (env.contains("device") && env["device"].is_object()) {
    d.threads = env["device"].value("threads", 0);
    d.memory_budget = env["device"].value("memory_budget", uint64_t(0));
  }
  d.quick = env.value("quick", false);
  d.timing = timing_name(timing_of(run));
  if (env.contains("board") && env["board"].is_object())
    d.board = fmt::format("{} ({})", env["board"].value("name", ""), env["board"].value("arch", ""));
  d.emulated = emulated_times(run);
  return d;
}

RunSummary summarize_run(const RunInfo& run, std::vector<AttemptRecord> attempts, const std::vector<RunInfo>& all_runs,
                         const Suite* suite) {
  RunSummary s;
  s.run = run;
  s.what = describe_run(run, all_runs);
  s.attempts = std::move(attempts);
  s.metrics = compute_metrics(outcomes_of(s.attempts));
  s.by_category = metrics_by(s.attempts, [&](const std::string& t) { return task_place(suite, t).category; });
  s.by_domain = metrics_by(s.attempts, [&](const std::string& t) { return task_place(suite, t).domain; });

  MemoryUse& m = s.memory;
  m.budget = s.what.memory_budget;
  std::vector<uint64_t> used;
  for (const auto& a : s.attempts) {
    if (a.eval.outcome == Outcome::over_budget) ++m.over_budget;
    if (a.eval.correct() || a.eval.candidate_memory > 0) used.push_back(a.eval.candidate_memory);
  }
  m.measured = static_cast<int>(used.size());
  if (!used.empty()) {
    std::sort(used.begin(), used.end());
    m.max_bytes = used.back();
    m.median_bytes = used[used.size() / 2];
  }

  s.versions = task_versions(s.attempts, suite);
  if (s.what.emulated) s.notes.push_back(std::string("on board ") + s.what.board + ": " + kEmulatedTimesNote);
  size_t unsandboxed = 0;
  for (const auto& a : s.attempts) unsandboxed += a.eval.where.remote() && !a.eval.where.sandboxed;
  if (unsandboxed)
    s.notes.push_back(fmt::format("{} attempt(s) ran without the board's sandbox (an emulated board started with --unsandboxed-emulation)",
                                  unsandboxed));
  if (s.what.quick)
    s.notes.push_back("quick timing (`ekb eval --quick`): every check as always, but each side timed for a few calls only: "
                      "a verification, not a measurement");
  if (!run.finished) s.notes.push_back("unfinished: the run stopped before its end (the same command resumes it)");
  if (s.what.scores_run)
    s.notes.push_back(fmt::format("an independent re-score of what run {} ({}) wrote", *s.what.scores_run, s.what.scores_label));
  if (s.what.timing == "warm")
    s.notes.push_back("timed warm: calls back to back with warm caches (docs/metrics.md), not each cold after a cache flush");
  if (s.metrics.noisy)
    s.notes.push_back(fmt::format("{} correct attempt(s) noisy: the speedup's 95% interval stayed wider than ±5%", s.metrics.noisy));
  if (m.over_budget)
    s.notes.push_back(fmt::format("{} attempt(s) over the memory budget of {}", m.over_budget, fmt_mib(m.budget)));
  for (const auto& n : version_notes(s.versions)) s.notes.push_back(n);
  return s;
}

RunSelection select_runs(ResultsStore& store, const std::string& store_path, const std::vector<int64_t>& ids, const Suite* suite) {
  std::vector<RunInfo> all = store.runs();
  if (all.empty())
    throw std::runtime_error(fmt::format("the results store {} holds no runs yet: make one with `ekb eval`, `ekb agent` or `ekb run`",
                                         store_path));
  std::vector<RunInfo> chosen;
  if (ids.empty()) {
    chosen = all;
  } else {
    for (int64_t id : ids) {
      if (std::any_of(chosen.begin(), chosen.end(), [&](const RunInfo& r) { return r.id == id; })) continue;  // named twice
      auto it = std::find_if(all.begin(), all.end(), [&](const RunInfo& r) { return r.id == id; });
      if (it == all.end()) {
        std::string have = fmt::format("{}..{}", all.front().id, all.back().id);
        throw std::runtime_error(fmt::format("no run {} in {} (it has runs {}; `ekb results --db {}` lists them)", id, store_path,
                                             have, store_path));
      }
      chosen.push_back(*it);
    }
  }
  RunSelection sel;
  for (const auto& r : chosen) {
    auto attempts = store.attempts(r.id);
    if (!attempts.empty()) {
      sel.runs.push_back(summarize_run(r, std::move(attempts), all, suite));
      continue;
    }
    nlohmann::json key = key_of(r);
    std::string label = agent::run_label(key);
    std::string model = key.value("model", "");
    std::string what = fmt::format("run {} ({}{})", r.id, label, model.empty() ? "" : ", model " + model);
    if (run_command(key) == RunCommand::generate) {
      std::vector<int64_t> scorers;
      for (const auto& other : all)
        if (describe_run(other, all).scores_run == r.id) scorers.push_back(other.id);
      sel.skipped.push_back(scorers.empty()
                                ? fmt::format("{} has no attempts of its own and is not scored yet: `ekb eval {} --device {}` scores it",
                                              what, key.value("out", "DIR"), r.device)
                                : fmt::format("{} has no attempts of its own: eval run {} scores its samples", what,
                                              fmt::join(scorers, ", ")));
    } else {
      sel.skipped.push_back(fmt::format("{} has no attempts stored{}", what, r.finished ? "" : " yet (unfinished)"));
    }
  }
  if (sel.runs.empty())
    throw std::runtime_error(fmt::format("nothing to report in {}: no run {} attempts ({})", store_path,
                                         ids.empty() ? "holds" : "asked for holds", fmt::join(sel.skipped, "; ")));
  return sel;
}

}  // namespace ekb::report

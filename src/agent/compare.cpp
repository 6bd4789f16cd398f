// The same-budget comparison (compare.h).
#include "agent/compare.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "eval/report.h"

namespace ekb::agent {

namespace {

std::string normalized(const std::string& dir) { return std::filesystem::path(dir).lexically_normal().string(); }

// The newest finished `ekb eval` run over `dir` on `device`.
std::optional<RunInfo> eval_run_over(ResultsStore& store, const std::string& dir, const std::string& device) {
  auto runs = store.runs();
  for (auto r = runs.rbegin(); r != runs.rend(); ++r) {
    if (!r->finished || r->device != device) continue;
    auto k = nlohmann::json::parse(r->key, nullptr, false);
    if (k.is_object() && k.value("command", "") == "eval" && normalized(k.value("dir", "")) == normalized(dir)) return *r;
  }
  return std::nullopt;
}

}  // namespace

std::string run_label(const nlohmann::json& key) {
  std::string cmd = key.value("command", "");
  std::string mode = key.value("mode", "ir");
  if (cmd == "generate") return fmt::format("direct generation ({})", mode);
  if (cmd == "agent" && key.value("policy", "search") == "llm") return mode == "raw" ? "free-form (raw)" : "LEKA-LLM (ir)";
  if (cmd == "agent") return "LEKA-search";
  if (cmd == "run") return key.value("phase", "") == "re-score" ? "main job (re-score)" : "main job (LEKA-search)";
  if (cmd == "eval") return key.value("dir", "") == "(defaults)" ? "eval (default schedules)" : "eval";
  return cmd.empty() ? "run" : cmd;
}

std::vector<ComparedRun> compare_runs(ResultsStore& store, const std::vector<int64_t>& runs, const std::set<std::string>& tasks) {
  std::vector<ComparedRun> out;
  for (int64_t id : runs) {
    std::optional<RunInfo> run = store.run(id);
    if (!run) throw std::runtime_error(fmt::format("no run {} in the results store (`ekb results` lists the runs)", id));
    nlohmann::json key = nlohmann::json::parse(run->key, nullptr, false);
    if (!key.is_object()) key = nlohmann::json::object();
    ComparedRun c;
    c.run = id;
    c.label = run_label(key);
    c.model = key.value("model", "");
    c.device = run->device;
    c.spend = store.llm_spend(id);
    std::string cmd = key.value("command", "");
    auto in_scope = [&](const std::string& task) { return tasks.empty() || tasks.count(task); };
    std::vector<AttemptRecord> scored;
    if (cmd == "generate") {
      std::string dir = key.value("out", "");
      std::optional<RunInfo> ev = eval_run_over(store, dir, run->device);
      if (!ev)
        throw std::runtime_error(fmt::format("run {} (direct generation) has not been scored on `{}`: run `ekb eval {} --device {}` first",
                                             id, run->device, dir, run->device));
      c.scored_by = fmt::format("eval run {}", ev->id);
      std::map<std::pair<std::string, int>, AttemptRecord> by_sample;
      for (auto& a : store.attempts(ev->id)) by_sample[{a.task, a.sample}] = std::move(a);
      for (const auto& r : store.llm_requests(id)) {
        if (!in_scope(r.task)) continue;
        auto it = by_sample.find({r.task, r.sample});
        // A sample with code is scored by an attempt on the same code; one without, by its failed attempt.
        if (it == by_sample.end() || (!r.file_hash.empty() && it->second.candidate_hash != r.file_hash)) {
          ++c.unscored;
          continue;
        }
        scored.push_back(it->second);
      }
    } else {
      std::optional<RunInfo> ev;
      if (cmd == "agent") ev = eval_run_over(store, key.value("out", ""), run->device);
      c.scored_by = ev ? fmt::format("eval run {}", ev->id) : "its own measurements";
      for (auto& a : store.attempts(ev ? ev->id : id))
        if (in_scope(a.task)) scored.push_back(std::move(a));
      if (cmd == "agent")
        for (const auto& t : store.step_tasks(id))
          if (in_scope(t)) c.measurements += static_cast<int>(store.steps(id, t).size());
    }
    for (const auto& a : scored) c.task_names.insert(a.task);
    c.tasks = static_cast<int>(c.task_names.size());
    c.samples = static_cast<int>(scored.size());
    c.metrics = compute_metrics(outcomes_of(scored), 1);
    out.push_back(std::move(c));
  }
  return out;
}

nlohmann::json compared_json(const ComparedRun& c) {
  return {{"run", c.run},
          {"label", c.label},
          {"model", c.model},
          {"device", c.device},
          {"scored_by", c.scored_by},
          {"tasks", c.tasks},
          {"samples", c.samples},
          {"unscored", c.unscored},
          {"metrics", metrics_json(c.metrics)},
          {"requests", c.spend.requests},
          {"prompt_tokens", c.spend.prompt_tokens},
          {"completion_tokens", c.spend.completion_tokens},
          {"cost", c.spend.cost},
          {"measurements", c.measurements}};
}

}  // namespace ekb::agent

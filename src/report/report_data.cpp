// The report's data (report_data.h).
#include "report/report_data.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "agent/prompts/reply_code.h"
#include "eval/report.h"
#include "suite/task_hash.h"
#include "util/text_hash.h"

namespace ekb::report {

namespace fs = std::filesystem;

namespace {

std::string now_utc() {
  auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

std::optional<std::string> read_text(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::nullopt;
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The steps of an agent run's searches, indexed by (task, program hash) (the first step that
// measured it), and their trajectories.
void index_agent_run(ResultsStore& store, int64_t run, ReportData& d, std::map<TaskCode, CandidateProgram>& found) {
  for (const auto& task : store.step_tasks(run)) {
    if (d.trajectories.count({run, task})) continue;
    agent::Trajectory t = agent::trajectory_of(store.steps(run, task));
    for (const auto& s : t.steps)
      if (!s.program.empty() && !found.count({task, s.program_hash}))
        found[{task, s.program_hash}] = {ProgramSource::agent_step, s.program, fmt::format("run {}, step {} of its search", run, s.step)};
    d.trajectories.emplace(RunTask{run, task}, std::move(t));
  }
}

// The code of a generation's replies, indexed by (task, hash of the code the sample's file got).
void index_generation(ResultsStore& store, const RunInfo& run, std::map<TaskCode, CandidateProgram>& found) {
  auto key = nlohmann::json::parse(run.key, nullptr, false);
  std::optional<Backend> backend = find_backend(run.backend);
  if (!key.is_object() || !backend) return;
  agent::CodeMode mode = key.value("mode", "ir") == "raw" ? agent::CodeMode::raw : agent::CodeMode::ir;
  agent::CodeLanguage lang = agent::code_language(mode, *backend);
  for (const auto& r : store.llm_requests(run.id)) {
    if (r.file_hash.empty() || found.count({r.task, r.file_hash})) continue;
    agent::ReplyCode code = agent::extract_code(r.reply, lang);
    if (code.status == agent::ReplyCodeStatus::ok && text_hash_hex(code.code) == r.file_hash)
      found[{r.task, r.file_hash}] = {ProgramSource::model_reply, code.code,
                                      fmt::format("the reply of model {} (run {}, sample {})", r.model, run.id, r.sample)};
  }
}

}  // namespace

std::vector<double> fast_curve_points(const std::vector<AttemptRecord>& attempts) {
  std::set<double> ps{0.0};
  double top = 2.0;
  for (const auto& a : attempts) {
    if (!a.eval.correct()) continue;
    for (double v : {a.eval.speedup, a.eval.speedup_lo})
      if (v > 0) {
        ps.insert(v);
        top = std::max(top, v);
      }
  }
  for (const auto& [key, p] : fast_thresholds()) ps.insert(p);
  ps.insert(top * 1.05);
  return {ps.begin(), ps.end()};
}

CandidateProgram resolve_program(const AttemptRecord& a, const std::map<TaskCode, CandidateProgram>& found, const Suite* suite) {
  auto it = found.find({a.task, a.candidate_hash});
  // The task's own text (`ekb eval --defaults`; an agent's start): shown as the task's.
  const Task* t = suite ? suite->find(a.task) : nullptr;
  if (t && text_hash_hex(t->text) == a.candidate_hash)
    return {ProgramSource::suite_task, t->text, "the task's own text (its default schedule)"};
  if (it != found.end()) return it->second;
  if (a.candidate_path.empty()) return {ProgramSource::missing, "", "no candidate file was stored with the attempt"};
  std::optional<std::string> text = read_text(a.candidate_path);
  if (!text) return {ProgramSource::missing, "", fmt::format("not shown: {} is not there any more", a.candidate_path)};
  if (text_hash_hex(*text) != a.candidate_hash)
    return {ProgramSource::missing, "",
            fmt::format("not shown: {} has changed since the attempt (its code's hash was {}, it is now {})", a.candidate_path,
                        a.candidate_hash, text_hash_hex(*text))};
  return {ProgramSource::file, *text, fmt::format("the file {} (unchanged since the attempt)", a.candidate_path)};
}

std::optional<int64_t> search_of(const ReportData& d, const RunSummary& run, const std::string& task) {
  if (d.trajectories.count({run.run.id, task})) return run.run.id;
  if (run.what.scores_run && d.trajectories.count({*run.what.scores_run, task})) return run.what.scores_run;
  return std::nullopt;
}

ReportData build_report_data(ResultsStore& store, const std::string& store_path, const std::vector<int64_t>& ids,
                             const Suite* suite) {
  ReportData d;
  d.store_path = store_path;
  d.generated = now_utc();
  if (suite) {
    d.suite_loaded = true;
    d.suite_dir = suite->dir().string();
    d.suite_version = suite->version();
  }
  d.selection = select_runs(store, store_path, ids, suite);

  // The code of every candidate: the searches of the selected agent runs and of the runs that eval
  // runs score (their trajectories too), the replies of the generations they score.
  std::map<TaskCode, CandidateProgram> found;
  std::set<int64_t> related;
  for (const auto& s : d.selection.runs) {
    related.insert(s.run.id);
    if (s.what.scores_run) related.insert(*s.what.scores_run);
  }
  for (int64_t id : related) {
    std::optional<RunInfo> r = store.run(id);
    if (!r) continue;
    if (run_command(nlohmann::json::parse(r->key, nullptr, false)) == RunCommand::generate) index_generation(store, *r, found);
    else index_agent_run(store, id, d, found);
  }

  std::map<std::string, std::vector<AttemptRecord>> per_backend, per_device;
  std::map<std::string, std::vector<int64_t>> backend_runs, device_runs;
  for (const auto& s : d.selection.runs) {
    for (const auto& a : s.attempts) {
      if (!d.tasks.count(a.task)) {
        TaskEntry e;
        e.name = a.task;
        TaskPlace place = task_place(suite, a.task);
        e.category = place.category;
        e.domain = place.domain;
        if (const Task* t = suite ? suite->find(a.task) : nullptr) {
          e.text = t->text;
          e.current_hash = task_hash(*t->program);
        }
        d.tasks.emplace(a.task, std::move(e));
      }
      if (!d.programs.count({a.task, a.candidate_hash})) d.programs.emplace(TaskCode{a.task, a.candidate_hash}, resolve_program(a, found, suite));
      per_backend[s.run.backend].push_back(a);
      per_device[s.run.device].push_back(a);
    }
    backend_runs[s.run.backend].push_back(s.run.id);
    device_runs[s.run.device].push_back(s.run.id);
    std::vector<double> ps = fast_curve_points(s.attempts);
    d.fast_curves[s.run.id] = fast_curve(outcomes_of(s.attempts), ps);
  }
  auto pooled = [](const std::map<std::string, std::vector<AttemptRecord>>& groups, const std::map<std::string, std::vector<int64_t>>& runs) {
    std::vector<GroupMetrics> out;
    for (const auto& [name, attempts] : groups)
      out.push_back({fmt::format("{} (run{} {})", name, runs.at(name).size() > 1 ? "s" : "", fmt::join(runs.at(name), ", ")),
                     compute_metrics(outcomes_of(attempts))});
    return out;
  };
  d.by_backend = pooled(per_backend, backend_runs);
  d.by_device = pooled(per_device, device_runs);
  return d;
}

}  // namespace ekb::report
